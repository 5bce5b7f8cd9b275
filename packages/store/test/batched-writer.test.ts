import { describe, expect, it } from "vitest";
import { BatchedWriter } from "../src/batched-writer.js";

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
});
