import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ProgressMeter } from "../src/progress/progress-meter.js";
import { type CountAt, etaSeconds, RateWindow } from "../src/progress/rate-window.js";

/** A watch: counts that never go down, seen at times that never go back. */
const watch = fc
  .record({
    before: fc.nat({ max: 10_000_000 }),
    steps: fc.array(fc.record({ ms: fc.integer({ min: 1, max: 30_000 }), gain: fc.nat(5000) }), {
      minLength: 1,
      maxLength: 200,
    }),
  })
  .map(({ before, steps }) => {
    const samples: CountAt[] = [{ at: 1_000_000, count: before }];
    for (const { ms, gain } of steps) {
      const last = samples.at(-1) as CountAt;
      samples.push({ at: last.at + ms, count: last.count + gain });
    }
    return samples;
  });

const WINDOW_MS = 10_000;

describe("the rate over a moving window", () => {
  it("never exceeds what came after the first result over the shorter of the window and the time since", () => {
    fc.assert(
      fc.property(watch, (samples) => {
        const window = new RateWindow(WINDOW_MS);
        for (const sample of samples) window.add(sample);
        const rate = window.rate();
        const first = samples[0] as CountAt;
        const origin = samples.find((sample) => sample.count > first.count);
        const last = samples.at(-1) as CountAt;
        if (origin === undefined || last.at === origin.at) {
          expect(rate).toBeUndefined();
          return;
        }
        expect(rate).toBeGreaterThanOrEqual(0);
        const gained = last.count - origin.count;
        const span = Math.min(WINDOW_MS, last.at - origin.at);
        expect(rate as number).toBeLessThanOrEqual((gained * 1000) / span + 1e-9);
      }),
    );
  });

  it("leaves out what was stored before watching began", () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 10_000_000 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 3, max: 60 }),
        (before, perSecond, seconds) => {
          const window = new RateWindow(WINDOW_MS);
          for (let s = 0; s <= seconds; s += 1) {
            window.add({ at: s * 1000, count: before + s * perSecond });
          }
          expect(window.rate()).toBeCloseTo(perSecond, 6);
          expect(window.meanRate()).toBeCloseTo(perSecond, 6);
        },
      ),
    );
  });

  it("follows a slowdown within the window instead of averaging the whole run", () => {
    const window = new RateWindow(WINDOW_MS);
    let count = 0;
    for (let s = 0; s <= 60; s += 1) {
      count += s <= 30 ? 1000 : 10;
      window.add({ at: s * 1000, count });
    }
    expect(window.rate()).toBeCloseTo(10, 6);
    expect(window.meanRate()).toBeGreaterThan(400);
  });
});

describe("the ETA", () => {
  it("is never negative, and absent only without a rate to go by", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1_000_000, max: 1_000_000 }),
        fc.option(fc.double({ noNaN: true, min: -1e9, max: 1e9 })),
        (remaining, rate) => {
          const eta = etaSeconds(remaining, rate ?? undefined);
          if (remaining <= 0) expect(eta).toBe(0);
          else if (rate === null || rate <= 0) expect(eta).toBeUndefined();
          else expect(eta).toBeGreaterThanOrEqual(0);
        },
      ),
    );
  });
});

describe("the progress meter", () => {
  it("measures the dataset's bytes while reading, then results of the plan", () => {
    let now = 0;
    const meter = new ProgressMeter(() => now);
    const reading = meter.frame({ read: { bytes: 0, of: 4000 }, done: 0, scored: 0 });
    expect(reading).toMatchObject({ label: "reading dataset", value: 0, total: 4000 });
    expect(reading.detail).toMatch(/^0% \(0 B of 4 kB\): 0 results stored, – results\/s, ETA –/);
    now = 1000;
    meter.frame({ read: { bytes: 1000, of: 4000 }, done: 100, scored: 100 });
    now = 2000;
    const later = meter.frame({ read: { bytes: 2000, of: 4000 }, done: 200, scored: 200 });
    expect(later.detail).toBe("50% (2 kB of 4 kB): 200 results stored, 100 results/s, ETA 2s");
    now = 3000;
    const scoring = meter.frame({ read: { bytes: 4000, of: 4000 }, done: 300, planned: 400 });
    expect(scoring).toMatchObject({ label: "scored", value: 300, total: 400 });
    expect(scoring.detail).toBe("300/400 results (75%), 100 results/s, ETA 1s");
  });

  it("shows a resumed run's earlier results as done without counting them as speed", () => {
    let now = 0;
    const meter = new ProgressMeter(() => now);
    meter.frame({ done: 39_000, planned: 40_000, scored: 0 });
    now = 1000;
    meter.frame({ done: 39_500, planned: 40_000, scored: 500 });
    now = 2000;
    const frame = meter.frame({ done: 40_000, planned: 40_000, scored: 1000 });
    expect(frame).toMatchObject({ value: 40_000, total: 40_000 });
    expect(frame.detail).toBe("40000/40000 results (100%), 500 results/s, ETA 0s");
  });
});
