import type { Pool, ScoreJob } from "@assay/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LocalTransport } from "../src/local.js";

/** Only what the transport reads of a job: its pool; the id tells jobs apart. */
function job(id: number, pool: Pool = "cpu"): ScoreJob {
  return { pool, sample: { id: String(id) } } as unknown as ScoreJob;
}

const ids = (jobs: readonly ScoreJob[]) => jobs.map((queued) => Number(queued.sample.id));

describe("LocalTransport.consumeBatches", () => {
  it("hands every job over once, in order, in batches of at most maxBatch, never more than concurrency in flight", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 8 }),
        fc.integer({ min: 1, max: 16 }),
        fc.integer({ min: 1, max: 24 }),
        fc.integer({ min: 1, max: 32 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 5 }),
        async (calls, maxBatch, concurrency, highWaterMark, delays) => {
          const transport = new LocalTransport({ highWaterMark });
          const handed: number[][] = [];
          let inFlight = 0;
          let mostInFlight = 0;
          transport.consumeBatches(
            "cpu",
            async (jobs) => {
              handed.push(ids(jobs));
              inFlight += jobs.length;
              mostInFlight = Math.max(mostInFlight, inFlight);
              const delay = delays[handed.length % delays.length] as number;
              await new Promise((resolve) => setTimeout(resolve, delay));
              inFlight -= jobs.length;
            },
            { concurrency, maxBatch },
          );
          let next = 0;
          for (const size of calls) {
            await transport.enqueue(Array.from({ length: size }, () => job(next++)));
          }
          await transport.drain();
          await transport.close();

          expect(handed.flat()).toEqual(Array.from({ length: next }, (_, i) => i));
          for (const batch of handed) {
            expect(batch.length).toBeGreaterThan(0);
            expect(batch.length).toBeLessThanOrEqual(maxBatch);
          }
          expect(mostInFlight).toBeLessThanOrEqual(concurrency);
          expect(inFlight).toBe(0);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("hands an enqueued call's jobs over together, not one batch per job", async () => {
    const transport = new LocalTransport();
    const sizes: number[] = [];
    transport.consumeBatches("cpu", async (jobs) => void sizes.push(jobs.length), {
      concurrency: 100,
      maxBatch: 40,
    });
    await transport.enqueue(Array.from({ length: 100 }, (_, i) => job(i)));
    await transport.drain();
    expect(sizes).toEqual([40, 40, 20]);
  });

  it("fails the run when a batch's handler rejects: drain() rejects and no further job is handed over", async () => {
    const transport = new LocalTransport({ highWaterMark: 4 });
    const handed: number[] = [];
    transport.consumeBatches(
      "cpu",
      async (jobs) => {
        handed.push(...ids(jobs));
        if (handed.includes(5)) throw new Error("store gone");
      },
      { concurrency: 2, maxBatch: 2 },
    );
    const enqueued = transport.enqueue(Array.from({ length: 40 }, (_, i) => job(i)));
    await expect(enqueued).rejects.toThrow("store gone");
    await expect(transport.drain()).rejects.toThrow("store gone");
    expect(handed).toContain(5);
    expect(handed.length).toBeLessThan(40);
  });

  it("keeps a per-job consumer on another pool working beside it", async () => {
    const transport = new LocalTransport();
    const cpu: number[] = [];
    const gpu: number[] = [];
    transport.consumeBatches("cpu", async (jobs) => void cpu.push(...ids(jobs)), {
      concurrency: 8,
      maxBatch: 3,
    });
    transport.consume("gpu", async (one) => void gpu.push(Number(one.sample.id)), {
      concurrency: 2,
    });
    await transport.enqueue(
      Array.from({ length: 20 }, (_, i) => job(i, i % 2 === 0 ? "cpu" : "gpu")),
    );
    await transport.drain();
    expect(cpu).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16, 18]);
    expect(gpu).toEqual([1, 3, 5, 7, 9, 11, 13, 15, 17, 19]);
  });

  it("checks its options", () => {
    const transport = new LocalTransport();
    expect(() =>
      transport.consumeBatches("cpu", async () => {}, { concurrency: 4, maxBatch: 0 }),
    ).toThrow(/`maxBatch`.*got 0/);
    expect(() =>
      transport.consumeBatches("cpu", async () => {}, { concurrency: 1.5, maxBatch: 2 }),
    ).toThrow(/`concurrency`.*got 1.5/);
  });
});
