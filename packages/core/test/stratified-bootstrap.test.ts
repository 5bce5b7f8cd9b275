import { describe, expect, it } from "vitest";
import { stratifiedBootstrap } from "../src/stats/stratified-bootstrap.js";

const values = (...v: number[]) => Float64Array.from(v);

describe("stratifiedBootstrap", () => {
  it("gives the weighted sum of means itself when no group varies", () => {
    const interval = stratifiedBootstrap([
      { values: values(0.9, 0.9, 0.9), weight: 1 },
      { values: values(0.4, 0.4), weight: -1 },
    ]);
    expect(interval?.low).toBeCloseTo(0.5, 12);
    expect(interval?.high).toBeCloseTo(0.5, 12);
  });

  it("brackets the difference of two spread groups, the same for the same seed", () => {
    const a = values(...Array.from({ length: 50 }, (_, i) => (i % 10) / 10 + 0.3));
    const b = values(...Array.from({ length: 40 }, (_, i) => (i % 10) / 10));
    const groups = [
      { values: a, weight: 1 },
      { values: b, weight: -1 },
    ];
    const interval = stratifiedBootstrap(groups, { seed: 7 });
    expect(interval?.low).toBeLessThan(0.3);
    expect(interval?.high).toBeGreaterThan(0.3);
    expect(interval?.low).toBeGreaterThan(0);
    expect(stratifiedBootstrap(groups, { seed: 7 })).toEqual(interval);
    expect(stratifiedBootstrap(groups, { seed: 8 })).not.toEqual(interval);
  });

  it("has no interval when a group is empty", () => {
    expect(stratifiedBootstrap([{ values: values(), weight: 1 }])).toBeNull();
  });
});
