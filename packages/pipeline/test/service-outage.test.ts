import { propertyRuns } from "@assay/test-support/property-runs";
import fc from "fast-check";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { ServiceOutage } from "../src/worker/service-outage.js";

// A server's outages as the worker logs and counts them, on a clock of the test's own:
// whatever the failures between a loss and the return, the log holds one warning when it
// goes, repeats no closer than `repeatMs`, and one line when it is back, with its length.

const REPEAT_MS = 30_000;
const RUNS = propertyRuns(200);

interface Line {
  level: number;
  msg: string;
  failedAttempts?: number;
}

/** A ServiceOutage on a clock the test moves, and the lines it logged. */
function outageOnClock() {
  const lines: Line[] = [];
  const log = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  let now = 1_000_000;
  const outage = new ServiceOutage({
    service: "redis",
    name: "Redis at redis://queue:6379",
    log,
    meanwhile: "taking no jobs until it is back",
    afterwards: "taking jobs again",
    repeatMs: REPEAT_MS,
    now: () => now,
  });
  return { outage, lines, advance: (ms: number) => (now += ms), at: () => now };
}

/** Outages, each the gaps (ms) between its failures and then the gap to the server's return. */
const outages = fc.array(
  fc.record({
    failures: fc.array(fc.integer({ min: 0, max: 45_000 }), { minLength: 1, maxLength: 40 }),
    backAfter: fc.integer({ min: 0, max: 45_000 }),
    upFor: fc.integer({ min: 0, max: 120_000 }),
  }),
  { minLength: 1, maxLength: 4 },
);

describe("ServiceOutage", () => {
  it("logs one warning per outage, repeated at most every repeatMs, and one line with its length when the server is back", () => {
    fc.assert(
      fc.property(outages, (plan) => {
        const { outage, lines, advance, at } = outageOnClock();
        let totalMs = 0;
        for (const [index, { failures, backAfter, upFor }] of plan.entries()) {
          const first = lines.length;
          let start = 0;
          const warnedAt: number[] = [];
          for (const [n, gap] of failures.entries()) {
            if (n > 0) advance(gap);
            if (n === 0) start = at();
            const before = lines.length;
            const due = n === 0 || at() - (warnedAt.at(-1) as number) >= REPEAT_MS;
            expect(outage.failed("connect ECONNREFUSED")).toBe(n === 0);
            // It warns when a warning is due (the first failure, or repeatMs after the last).
            expect(lines.length - before).toBe(due ? 1 : 0);
            if (due) warnedAt.push(at());
            expect(outage.up).toBe(false);
          }
          advance(backAfter);
          const lastMs = at() - start;
          outage.back();
          totalMs += lastMs;
          expect(outage.up).toBe(true);

          const own = lines.slice(first);
          const warnings = own.filter((line) => line.level === 40);
          expect(warnings[0]?.msg).toBe(
            "lost the connection to Redis at redis://queue:6379: taking no jobs until it is back",
          );
          // Bounded: never two warnings closer than repeatMs, so at most one per repeatMs.
          for (let i = 1; i < warnedAt.length; i += 1) {
            expect((warnedAt[i] as number) - (warnedAt[i - 1] as number)).toBeGreaterThanOrEqual(
              REPEAT_MS,
            );
          }
          expect(warnings.length).toBeLessThanOrEqual(1 + Math.floor(lastMs / REPEAT_MS));
          // Each repeat says how long and how many attempts failed so far.
          for (const repeat of warnings.slice(1)) {
            expect(repeat.msg).toMatch(
              /^Redis at redis:\/\/queue:6379 still unreachable after \d+ s \(\d+ failed attempts\)/,
            );
          }
          const back = own.filter((line) => line.level === 30);
          expect(back.map((line) => line.msg)).toEqual([
            `Redis at redis://queue:6379 is back after ${(lastMs / 1000).toFixed(1)} s: taking jobs again`,
          ]);
          expect(back[0]?.failedAttempts).toBe(failures.length);
          expect(outage.state()).toMatchObject({
            up: true,
            outages: index + 1,
            downSeconds: totalMs / 1000,
            currentDownSeconds: 0,
          });
          advance(upFor);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it("counts the current outage's seconds while it lasts, and says nothing when the server was never lost", () => {
    const { outage, lines, advance } = outageOnClock();
    outage.back();
    expect(lines).toEqual([]);
    outage.failed("connect ECONNREFUSED");
    advance(12_500);
    expect(outage.state()).toEqual({
      service: "redis",
      up: false,
      outages: 1,
      downSeconds: 12.5,
      currentDownSeconds: 12.5,
    });
  });
});
