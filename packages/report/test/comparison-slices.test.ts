import { rateOf } from "@assay/core";
import { describe, expect, it } from "vitest";
import {
  formatDelta,
  formatInterval,
  renderReportHtml,
  renderReportJson,
  renderReportTable,
  verdictOf,
} from "../src/index.js";
import { COMPARE, REPORT, TREND } from "./support/bundle.js";
import { COMPARISON, SLICES } from "./support/comparison.js";

const bundle = {
  report: REPORT,
  compare: COMPARE,
  trend: TREND,
  comparison: COMPARISON,
  slices: SLICES,
};
const [pass1, selected, judge, exact] = COMPARISON.differences as [
  (typeof COMPARISON.differences)[0],
  (typeof COMPARISON.differences)[0],
  (typeof COMPARISON.differences)[0],
  (typeof COMPARISON.differences)[0],
];

describe("paired differences", () => {
  it("prints accuracies in signed percentage points and scorer means as numbers", () => {
    expect(formatDelta("accuracy", -0.02)).toBe("-2.0 pts");
    expect(formatDelta("accuracy", 0.125)).toBe("+12.5 pts");
    expect(formatDelta("accuracy", -0.0001)).toBe("0.0 pts");
    expect(formatDelta("scorer", 0.06)).toBe("+0.0600");
    expect(formatInterval(pass1)).toBe("[-29.0, -11.0] pts");
    expect(formatInterval(selected)).toBe("[-5.0, 0.0] pts");
    expect(formatInterval(judge)).toBe("[+0.0310, +0.0890]");
    expect(formatInterval(exact)).toBe("n/a");
  });

  it("says which differences are beyond noise", () => {
    expect(verdictOf(pass1)).toBe("lower: beyond noise");
    expect(verdictOf(selected)).toBe("within noise");
    expect(verdictOf(judge)).toBe("higher: beyond noise");
    expect(verdictOf(exact)).toBe("no tasks in both runs");
  });

  it("shows each figure, its interval and verdict in the table, with the method", () => {
    const text = renderReportTable(bundle);
    expect(text).toContain(
      "Paired differences: r2 minus r1 (95% paired bootstrap interval over tasks, 2000 resamples, seed 1)",
    );
    expect(text).toMatch(
      /pass@1\s+│\s+100\s+│\s+40\.0%\s+│\s+60\.0%\s+│\s+-20\.0 pts\s+│\s+\[-29\.0, -11\.0\] pts\s+│\s+lower: beyond noise/,
    );
    expect(text).toMatch(/selected\s+│\s+100\s+│.*-2\.0 pts.*within noise/);
    expect(text).toMatch(/mean judge\s+│\s+98\s+│\s+0\.6100\s+│\s+0\.5500\s+│\s+\+0\.0600/);
  });

  it("marks an interval the bootstrap's normal limit gave, and says what that is", () => {
    const normal = { ...judge, metric: "probe", interval: "normal" as const };
    const withNormal = {
      ...bundle,
      comparison: { ...COMPARISON, differences: [...COMPARISON.differences, normal] },
    };
    expect(formatInterval(normal)).toBe("[+0.0310, +0.0890] normal");
    const note =
      /An interval marked normal is the one the bootstrap converges to .* over more than 20,000 tasks of more than 32 distinct differences/;
    expect(renderReportTable(withNormal)).toMatch(note);
    expect(renderReportHtml(withNormal)).toMatch(note);
    expect(renderReportTable(bundle)).not.toContain("marked normal");
  });

  it("marks rows beyond noise in the HTML and draws each interval around zero", () => {
    const html = renderReportHtml(bundle);
    const section = html.slice(html.indexOf('data-section="comparison"'));
    expect(section).toContain(
      '<tr data-metric="pass@1" data-kind="accuracy" data-tasks="100" data-difference="-0.2" data-low="-0.29" data-high="-0.11" data-verdict="real" class="real">',
    );
    expect(section).toMatch(/data-metric="selected"[^>]*data-verdict="noise">/);
    expect(section).toMatch(/data-metric="exact"[^>]*data-verdict="none">/);
    // The zero line sits in the middle; pass@1's whole range lies left of it.
    const bar = /data-metric="pass@1"[\s\S]*?<line class="range" x1="([\d.]+)" x2="([\d.]+)"/.exec(
      section,
    );
    expect(Number(bar?.[1])).toBeLessThan(80);
    expect(Number(bar?.[2])).toBeLessThan(80);
  });

  it("carries the comparison and the slices in the JSON", () => {
    const summary = {
      runId: "r2",
      name: null,
      dataset: null,
      startedAt: "2026-11-02T00:00:00.000Z",
      finishedAt: null,
      planned: 0,
      samples: 0,
      results: 0,
      groups: [],
      inputErrors: 0,
      inputErrorExamples: [],
      truncation: { calls: 0, truncated: 0, refused: 0 },
    };
    const json = JSON.parse(renderReportJson(summary, bundle));
    expect(json.comparison).toEqual(COMPARISON);
    expect(json.slices).toEqual(SLICES);
    const without = JSON.parse(
      renderReportJson(summary, { report: REPORT, compare: null, trend: [] }),
    );
    expect(without.comparison).toBeNull();
    expect(without.slices).toBeNull();
  });
});

describe("slices by a metadata field", () => {
  it("puts every headline figure in a column per value, samples without it as (none)", () => {
    const text = renderReportTable(bundle);
    expect(text).toContain("By metadata.kind");
    expect(text).toMatch(/│\s+│ open <a>\s+│ short\s+│ \(none\)\s+│/);
    expect(text).toMatch(/pass@1\s+│ 40\.0% \(2\/5\)\s+│ 100\.0% \(5\/5\)\s+│ n\/a/);
    expect(text).toMatch(/cut to fit\s+│ 15\.0% \(3\/20\)/);
    expect(text).toMatch(/cost per solved task\s+│ 0\.1000 USD\s+│ no prices/);
    expect(text).toMatch(/mean judge\s+│ 0\.5000 \(20\)\s+│ n\/a/);
    expect(text).toMatch(/no scored candidate\s+│ 0 tasks\s+│ 1 task/);
  });

  it("renders the same figures in the HTML, escaped", () => {
    const html = renderReportHtml(bundle);
    const section = html.slice(html.indexOf('data-section="slices"'));
    expect(section).toContain("<h2>By metadata.kind</h2>");
    expect(section).toContain('<th data-slice="open &lt;a&gt;">open &lt;a&gt;</th>');
    expect(section).toContain(
      '<tr data-figure="selected"><th>verifier-selected</th><td data-slice="open &lt;a&gt;">60.0% (3/5)</td>',
    );
    expect(section).toContain('<td data-slice="(none)">1 / 1</td>');
  });

  it("leaves out the selection and truncation rows when no slice has them, saying why", () => {
    const none = { tie: rateOf(0, 0), pass1: rateOf(0, 0), selected: rateOf(0, 0) };
    const plain = {
      ...SLICES,
      slices: SLICES.slices.map((s) => ({
        ...s,
        ...none,
        oracle: rateOf(0, 0),
        truncation: rateOf(0, 0),
      })),
    };
    const text = renderReportTable({ ...bundle, comparison: undefined, slices: plain });
    const table = text.slice(text.indexOf("By metadata.kind"), text.indexOf("Left out:"));
    expect(table).not.toMatch(/pass@1|verifier-selected|oracle|top tie|per solved task|cut to fit/);
    expect(table).toMatch(/mean judge\s+│ 0\.5000 \(20\)/);
    expect(text).toContain(
      "Left out: no task has a pick, so the selection rows do not apply; no verifier calls.",
    );
    const html = renderReportHtml({ ...bundle, slices: plain });
    expect(html).not.toContain('data-figure="pass1"');
    expect(html).toContain('data-note="slices-absent"');
  });

  it("leaves both sections out when not asked for", () => {
    const plain = { report: REPORT, compare: COMPARE, trend: TREND };
    expect(renderReportTable(plain)).not.toMatch(/Paired differences|By metadata/);
    expect(renderReportHtml(plain)).not.toMatch(/data-section="(comparison|slices)"/);
  });

  it("counts solved tasks by the pass rule in each slice of a run without selection", () => {
    const none = { tie: rateOf(0, 0), pass1: rateOf(0, 0), selected: rateOf(0, 0) };
    const byRule = {
      ...SLICES,
      slices: SLICES.slices.map((s, i) => ({
        ...s,
        ...none,
        oracle: rateOf(0, 0),
        solved: { decidedBy: "pass_rule" as const, solved: [2, 4, 0][i] ?? 0 },
      })),
    };
    const text = renderReportTable({ ...bundle, comparison: undefined, slices: byRule });
    const start = text.indexOf("By metadata.kind");
    const table = text.slice(start, text.indexOf("Left out:", start));
    expect(table).toMatch(
      /solved \(pass rule\)\s+│ 40\.0% \(2\/5\)\s+│ 80\.0% \(4\/5\)\s+│ 0\.0% \(0\/1\)/,
    );
    expect(table).toMatch(/cost per solved task\s+│ 0\.1000 USD/);
    expect(table).not.toMatch(/pass@1|verifier-selected|oracle/);
    expect(text).toContain("a task is solved when its first candidate passes the spec's pass rule");
    const html = renderReportHtml({ ...bundle, slices: byRule });
    expect(html).toContain(
      '<tr data-figure="solved"><th>solved (pass rule)</th><td data-slice="open &lt;a&gt;">40.0% (2/5)</td>',
    );
  });
});
