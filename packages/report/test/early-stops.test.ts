import type { EarlyStopCandidate, EarlyStopReport, RunSummary } from "@assay/core";
import { describe, expect, it } from "vitest";
import { renderReportHtml, renderReportJson, renderReportTable } from "../src/index.js";
import { REPORT, TREND } from "./support/bundle.js";

function candidate(i: number): EarlyStopCandidate {
  return {
    runId: "r2",
    sampleId: `s<${i}>`,
    taskId: `t${i}`,
    scorer: "judge",
    fromStep: 1,
    falls: 3,
    values: [0.9, 0.8, 0.7, 0.6],
    progress: [0.2, 0.9, 0.8, 0.7, 0.6, null, 0.65],
  };
}

/** 12 candidates in the run, 11 returned by the query (its limit), 10 shown. */
const STOPS: EarlyStopReport = {
  fallSteps: 3,
  minFall: 0.01,
  total: 12,
  candidates: Array.from({ length: 11 }, (_, i) => candidate(i)),
};
const bundle = { report: REPORT, compare: null, trend: TREND, earlyStops: STOPS };

describe("early-stop candidates in the report", () => {
  it("lists the first ten in the table, with the step to stop after and the fall", () => {
    const text = renderReportTable(bundle);
    expect(text).toContain(
      "Early-stop candidates (value fell 3 steps in a row, by at least 0.01 each): 12",
    );
    // The whole curve, the fall in brackets, and where it ended: a fall to 0.60 that
    // recovers to 0.65 reads differently from one that ends there.
    expect(text).toMatch(
      /s<0>\s+│?\s*t0\s+│?\s*judge\s+│?\s*2\s+│?\s*3\s+│?\s*0\.20, \[0\.90 → 0\.80 → 0\.70 → 0\.60\], –, 0\.65\s+│?\s*0\.65/,
    );
    expect(text).toContain("s<9>");
    expect(text).not.toContain("s<10>");
    expect(text).toContain("… and 2 more; --format json lists the first 11");
  });

  it("says so when there are none, and leaves the section out when not queried", () => {
    const none = {
      ...bundle,
      earlyStops: { fallSteps: 4, minFall: 0.05, total: 0, candidates: [] },
    };
    expect(renderReportTable(none)).toContain(
      "fell 4 steps in a row, by at least 0.05 each): 0, none",
    );
    const { earlyStops: _, ...without } = bundle;
    expect(renderReportTable(without)).not.toContain("Early-stop");
    expect(renderReportHtml(without)).not.toContain('data-section="early-stops"');
  });

  it("draws each curve as a sparkline with the fall over it, a gap where a step is unscored", () => {
    const html = renderReportHtml(bundle);
    const section = html.slice(html.indexOf('<section class="early-stops"'));
    expect(section).toContain("<h2>Early-stop candidates: 12</h2>");
    expect(section.match(/<li /g)).toHaveLength(10);
    expect(section).toContain('<li data-sample="s&lt;0&gt;" data-from-step="1" data-falls="3">');
    expect(section).toContain(
      "stop after step 2, then 0.90 → 0.80 → 0.70 → 0.60; whole curve 0.20, [0.90 → 0.80 → 0.70 → 0.60], –, 0.65, final 0.65",
    );
    const first = section.slice(0, section.indexOf("</li>"));
    // 0.2 .. 0.6 (steps 0-4), a gap at step 5, then 0.65 alone: two curve pieces.
    expect(first.match(/class="curve"/g)).toHaveLength(2);
    expect(first).toContain(
      '<polyline class="fall" points="20.0,2.8 40.0,5.6 60.0,8.4 80.0,11.2"/>',
    );
    expect(first).toContain('aria-label="progress 0.20, 0.90, 0.80, 0.70, 0.60, –, 0.65"');
  });

  it("says one step in the singular, and leaves out a minimum of 0 (any drop)", () => {
    const one = { ...bundle, earlyStops: { ...STOPS, fallSteps: 1, minFall: 0 } };
    const text = renderReportTable(one);
    expect(text).toContain("Early-stop candidates (value fell 1 step): 12");
    expect(text).not.toMatch(/1 steps|in a row|at least 0 /);
    expect(renderReportHtml(one)).toContain("Trajectories whose verifier value fell 1 step;");
  });

  it("prints as many decimals as it takes to see every step of a small fall", () => {
    const slow = {
      ...candidate(0),
      fromStep: 0,
      values: [0.5712, 0.5711, 0.571, 0.5709],
      progress: [0.5712, 0.5711, 0.571, 0.5709],
    };
    const small = { ...bundle, earlyStops: { ...STOPS, minFall: 1e-4, candidates: [slow] } };
    expect(renderReportTable(small)).toContain("0.5712 → 0.5711 → 0.5710 → 0.5709");
    const html = renderReportHtml(small);
    expect(html).toContain("then 0.5712 → 0.5711 → 0.5710 → 0.5709");
    expect(html).toContain('aria-label="progress 0.5712, 0.5711, 0.5710, 0.5709"');
    expect(html).toContain("fell 3 steps in a row, by at least 0.0001 each;");
  });

  it("carries every queried candidate in the JSON", () => {
    const summary = { runId: "r2", groups: [] } as unknown as RunSummary;
    const json = JSON.parse(renderReportJson(summary, bundle));
    expect(json.earlyStops.total).toBe(12);
    expect(json.earlyStops.minFall).toBe(0.01);
    expect(json.earlyStops.candidates).toHaveLength(11);
    expect(json.earlyStops.candidates[0]).toEqual(candidate(0));
  });
});
