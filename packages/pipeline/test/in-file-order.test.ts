import { describe, expect, it } from "vitest";
import { InFileOrder } from "../src/run/in-file-order.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("InFileOrder", () => {
  it("runs each task after the one before has ended, without the caller waiting", async () => {
    const order = new InFileOrder();
    const ran: string[] = [];
    const first = order.run(async () => {
      await pause(20);
      ran.push("first");
      return 1;
    });
    const second = order.run(async () => {
      ran.push("second");
      return 2;
    });
    expect(ran).toEqual([]);
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(ran).toEqual(["first", "second"]);
  });

  it("runs no task after one failed: the later ones fail with its error", async () => {
    const order = new InFileOrder();
    let ranAfter = false;
    // Nobody awaits the failed task itself: that must be no unhandled rejection.
    order.run(async () => {
      throw new Error("the store refused the chunk");
    });
    const later = order.run(async () => {
      ranAfter = true;
    });
    await expect(later).rejects.toThrow("the store refused the chunk");
    expect(ranAfter).toBe(false);
  });
});
