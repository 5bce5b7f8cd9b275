import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BatchedWriter, type RowFailures } from "../src/batched-writer.js";
import { RejectedRowError } from "../src/rejected-row-error.js";

/** What a write function throws for a row it cannot hold (the store's data exception). */
class BadRow extends Error {}

/** One producer's call: a single `add`, or `addAll` of several rows at once. */
type Call = { kind: "add"; item: number } | { kind: "addAll"; items: number[] };

/** Negative rows are refused by the store; the others are written. */
const rowArbitrary = fc.integer({ min: -3, max: 1000 });
const callArbitrary: fc.Arbitrary<Call> = fc.oneof(
  rowArbitrary.map((item) => ({ kind: "add" as const, item })),
  fc.array(rowArbitrary, { maxLength: 12 }).map((items) => ({ kind: "addAll" as const, items })),
);

describe("BatchedWriter.addAll", () => {
  it("reports each row's outcome to its own call, writes every good row once and in order, mixed with add()", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(callArbitrary, { maxLength: 30 }),
        fc.integer({ min: 1, max: 8 }),
        async (calls, maxBatch) => {
          const written: number[] = [];
          const writer = new BatchedWriter(
            async (items: number[]) => {
              if (items.some((n) => n < 0)) throw new BadRow("refused");
              written.push(...items);
            },
            { maxBatch, maxDelayMs: 1, isRowError: (error) => error instanceof BadRow },
          );
          const outcomes = calls.map((call) =>
            call.kind === "add"
              ? writer.add(call.item).then(
                  () => "stored" as const,
                  (error: unknown) => error,
                )
              : writer.addAll(call.items),
          );
          const settled = await Promise.all(outcomes);
          await writer.close();

          const rows = calls.flatMap((call) => (call.kind === "add" ? [call.item] : call.items));
          // Each good row exactly once, in the order added; a refused one never.
          expect(written).toEqual(rows.filter((n) => n >= 0));
          calls.forEach((call, index) => {
            const outcome = settled[index];
            if (call.kind === "add") {
              if (call.item >= 0) expect(outcome).toBe("stored");
              else expect(outcome).toBeInstanceOf(RejectedRowError);
              return;
            }
            const failures = outcome as RowFailures;
            const refused = call.items.flatMap((n, at) => (n < 0 ? [at] : []));
            expect([...failures.keys()].sort((a, b) => a - b)).toEqual(refused);
            for (const error of failures.values()) expect(error).toBeInstanceOf(RejectedRowError);
          });
          expect(writer.stats).toMatchObject({
            rows: written.length,
            refused: rows.length - written.length,
            pending: 0,
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it("gives every row of a batch that failed for another reason that error, across the batches the call was split into", async () => {
    const writes: number[][] = [];
    const writer = new BatchedWriter(
      async (items: number[]) => {
        writes.push(items);
        if (items.includes(7)) throw new Error("connection lost");
      },
      { maxBatch: 4, maxDelayMs: 1 },
    );
    const failures = await writer.addAll([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // Three batches: [1..4] and [9] stored, [5..8] lost with the connection.
    expect(writes).toEqual([[1, 2, 3, 4], [5, 6, 7, 8], [9]]);
    expect([...failures.keys()]).toEqual([4, 5, 6, 7]);
    for (const error of failures.values()) expect((error as Error).message).toBe("connection lost");
    await writer.close();
    expect(writer.stats).toMatchObject({ rows: 5, failedFlushes: 1, pending: 0 });
  });

  it("waits for room once a call would pass four batches pending, and refuses calls after close()", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const writer = new BatchedWriter(
      async () => {
        await gate;
      },
      { maxBatch: 2, maxDelayMs: 0 },
    );
    const first = writer.addAll([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const second = writer.addAll([10, 11]);
    // The first call is buffered whole; the second waits for a flush to make room.
    expect(writer.stats.pending).toBe(9);
    release();
    expect((await first).size).toBe(0);
    expect((await second).size).toBe(0);
    await writer.close();
    await expect(writer.addAll([12])).rejects.toThrow(/after close/);
    expect((await writer.addAll([])).size).toBe(0);
  });
});
