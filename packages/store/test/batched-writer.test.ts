import { describe, expect, it } from "vitest";
import { BatchedWriter, type WriteObservation } from "../src/batched-writer.js";
import { RejectedRowError } from "../src/rejected-row-error.js";

/** What a write function throws for a row it cannot hold (the store's data exception). */
class BadRow extends Error {}

/** A write function that records batches and can be held open or made to fail. */
function recorder() {
  const batches: number[][] = [];
  let release: () => void = () => {};
  let gate: Promise<void> | undefined;
  let failure: Error | undefined;
  return {
    batches,
    hold() {
      gate = new Promise((resolve) => {
        release = resolve;
      });
    },
    release: () => release(),
    failWith(error: Error | undefined) {
      failure = error;
    },
    write: async (items: number[]) => {
      batches.push(items);
      if (gate !== undefined) await gate;
      if (failure !== undefined) throw failure;
    },
  };
}

describe("BatchedWriter", () => {
  it("writes rows that arrive together as one batch after the delay", async () => {
    const sink = recorder();
    const writer = new BatchedWriter(sink.write, { maxBatch: 100, maxDelayMs: 10 });
    const started = Date.now();
    await Promise.all([1, 2, 3].map((n) => writer.add(n)));
    expect(Date.now() - started).toBeGreaterThanOrEqual(9);
    expect(sink.batches).toEqual([[1, 2, 3]]);
    expect(writer.stats).toMatchObject({ rows: 3, flushes: 1, pending: 0 });
  });

  it("runs one flush at a time and batches what arrived meanwhile", async () => {
    const sink = recorder();
    const writer = new BatchedWriter(sink.write, { maxBatch: 2, maxDelayMs: 50 });
    sink.hold();
    const first = [writer.add(1), writer.add(2)];
    const later = [writer.add(3), writer.add(4), writer.add(5)];
    expect(sink.batches).toEqual([[1, 2]]);
    sink.release();
    await Promise.all([...first, ...later]);
    expect(sink.batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it("rejects the rows of a failed batch, and flush() reports it", async () => {
    const sink = recorder();
    const writer = new BatchedWriter(sink.write, { maxBatch: 10, maxDelayMs: 60_000 });
    sink.failWith(new Error("db down"));
    const added = writer.add(1);
    await expect(writer.flush()).rejects.toThrow("db down");
    await expect(added).rejects.toThrow("db down");
    sink.failWith(undefined);
    const second = writer.add(2);
    await writer.flush();
    await second;
    expect(writer.stats).toMatchObject({ rows: 1, failedFlushes: 1 });
  });

  it("makes producers wait past four batches pending, and lets them go as flushes finish", async () => {
    const sink = recorder();
    const writer = new BatchedWriter(sink.write, { maxBatch: 5, maxDelayMs: 0 });
    sink.hold();
    const adds = Array.from({ length: 30 }, (_, i) => writer.add(i));
    expect(writer.stats.pending).toBe(21);
    sink.release();
    await Promise.all(adds);
    expect(sink.batches.flat()).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });

  it("refuses rows after close()", async () => {
    const sink = recorder();
    const writer = new BatchedWriter(sink.write);
    await writer.add(1);
    await writer.close();
    await expect(writer.add(2)).rejects.toThrow(/after close/);
  });

  it("checks its options", () => {
    expect(() => new BatchedWriter(async () => {}, { maxBatch: 0 })).toThrow(/`maxBatch`.*got `0`/);
  });

  it("splits a refused batch to find the bad rows: only they fail, in few extra writes", async () => {
    const writes: number[][] = [];
    const write = async (items: number[]) => {
      writes.push(items);
      if (items.some((n) => n < 0)) throw new BadRow("refused");
    };
    const writer = new BatchedWriter(write, {
      maxBatch: 256,
      maxDelayMs: 60_000,
      isRowError: (error) => error instanceof BadRow,
    });
    const items = Array.from({ length: 256 }, (_, i) => (i === 40 || i === 200 ? -i : i));
    const outcomes = Promise.allSettled(items.map((n) => writer.add(n)));
    await writer.flush();
    const settled = await outcomes;

    const failed = settled.flatMap((s, i) => (s.status === "rejected" ? [i] : []));
    expect(failed).toEqual([40, 200]);
    expect((settled[40] as PromiseRejectedResult).reason).toBeInstanceOf(RejectedRowError);
    const stored = writes.filter((batch) => !batch.some((n) => n < 0)).flat();
    expect(stored.sort((a, b) => a - b)).toEqual(items.filter((n) => n >= 0));
    // Two bad rows among 256: at most 2·2·log2(256) writes after the first.
    expect(writes.length).toBeLessThanOrEqual(1 + 2 * 2 * 8);
    expect(writer.stats).toMatchObject({ rows: 254, refused: 2, failedFlushes: 0 });
  });

  it("does not split a batch that failed for another reason (the store is down)", async () => {
    const sink = recorder();
    const writer = new BatchedWriter(sink.write, {
      maxDelayMs: 60_000,
      isRowError: (error) => error instanceof BadRow,
    });
    sink.failWith(new Error("connection refused"));
    const added = [writer.add(1), writer.add(2), writer.add(3)];
    await expect(writer.flush()).rejects.toThrow("connection refused");
    for (const add of added) await expect(add).rejects.toThrow("connection refused");
    expect(sink.batches).toEqual([[1, 2, 3]]);
  });

  it("reports every write to onWrite, with its result, including the splits that isolate a refused row", async () => {
    const seen: WriteObservation<number>[] = [];
    const writer = new BatchedWriter(
      async (items: number[]) => {
        if (items.some((n) => n < 0)) throw new BadRow("refused");
        return items.length;
      },
      {
        maxBatch: 4,
        maxDelayMs: 10,
        isRowError: (error) => error instanceof BadRow,
        onWrite: (write) => seen.push(write),
      },
    );
    const added = [1, 2, -3, 4].map((n) => writer.add(n));
    await expect(added[2]).rejects.toBeInstanceOf(RejectedRowError);
    await Promise.all([added[0], added[1], added[3]]);
    const stored = seen.filter((write) => write.result !== undefined);
    const failed = seen.filter((write) => write.result === undefined);
    // The whole batch failed, then its halves were written until -3 stood alone.
    expect(failed.map((write) => write.rows)).toContain(4);
    expect(failed.map((write) => write.rows)).toContain(1);
    expect(stored.reduce((sum, write) => sum + (write.result ?? 0), 0)).toBe(3);
    await writer.close();
  });
});
