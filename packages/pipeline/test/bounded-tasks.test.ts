import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BoundedTasks } from "../src/run/bounded-tasks.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("BoundedTasks", () => {
  it("never runs more than its limit at once, and settles after every task", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 20 }),
        async (limit, delays) => {
          const tasks = new BoundedTasks(limit);
          let running = 0;
          let most = 0;
          let done = 0;
          for (const delay of delays) {
            await tasks.add(async () => {
              running += 1;
              most = Math.max(most, running);
              await pause(delay);
              running -= 1;
              done += 1;
            });
          }
          await tasks.settle();
          expect(most).toBeLessThanOrEqual(limit);
          expect(done).toBe(delays.length);
        },
      ),
      { numRuns: 30 },
    );
  });

  it("throws the first failure from the next add, and lets the others finish", async () => {
    const tasks = new BoundedTasks(2);
    let finished = false;
    await tasks.add(async () => {
      await pause(20);
      finished = true;
    });
    await tasks.add(async () => {
      throw new Error("Redis refused the chunk");
    });
    await expect(tasks.add(async () => {})).rejects.toThrow("Redis refused the chunk");
    await expect(tasks.settle()).rejects.toThrow("Redis refused the chunk");
    expect(finished).toBe(true);
  });
});
