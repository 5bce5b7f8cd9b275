import type { RunSummary } from "@assay/core";
import { describe, expect, it } from "vitest";
import { renderReportHtml, renderReportJson, renderReportTable } from "../src/index.js";
import { ABLATION } from "./support/ablation.js";
import { REPORT, TREND } from "./support/bundle.js";

const withAblation = { report: REPORT, compare: null, trend: TREND, ablation: ABLATION };
const without = { report: REPORT, compare: null, trend: TREND };

describe("selection ablation in the report", () => {
  it("tables each criterion alone and the first k variants against the run's mean", () => {
    const text = renderReportTable(withAblation);
    expect(text).toContain("Selection ablation (judge, best_of_n; 3 criteria × 2 variants)");
    const line = (label: string) => text.split("\n").find((l) => l.includes(label)) ?? "";
    expect(line("mean of all 3 criteria × 2 variants (the run)")).toContain("70.0% (7/10)");
    expect(line("criterion spec alone")).toMatch(/80\.0% \(8\/10\)[\s│]+\+10\.0 pp/);
    expect(line("criterion errors alone")).toMatch(/40\.0% \(4\/10\)[\s│]+−30\.0 pp/);
    expect(line("first variant, all criteria")).toMatch(/60\.0% \(6\/10\)[\s│]+−10\.0 pp/);
    expect(line("first 2 variants, all criteria")).toMatch(/70\.0% \(7\/10\)[\s│]+±0\.0 pp/);
  });

  it("names the judge whose pair judgments every row of a judged run re-selects with", () => {
    const judged = {
      ...withAblation,
      ablation: { ...ABLATION, method: "pivot_tournament", judge: "pair" },
    };
    const text = renderReportTable(judged);
    expect(text).toContain(
      "Selection ablation (judge, pivot_tournament judged by pair; 3 criteria × 2 variants)",
    );
    expect(text).toContain(
      "Every row re-selects with pair's stored pair judgments, as the run did",
    );
    expect(text).toMatch(/scores averaged\s+│ selected \(judged by pair\)/);
    const html = renderReportHtml(judged);
    expect(html).toContain("<th>selected (judged by pair)</th>");
    expect(html).toContain('data-note="judge"');
    expect(html).toContain("pivot_tournament judged by pair, 3 criteria × 2 variants");
    const summary = { runId: "r2", groups: [] } as unknown as RunSummary;
    const json = JSON.parse(renderReportJson(summary, judged)) as { ablation: { judge: string } };
    expect(json.ablation.judge).toBe("pair");
    // Without a judge the headings stay the verifier's.
    expect(renderReportTable(withAblation)).not.toContain("judged by");
    expect(renderReportHtml(withAblation)).toContain("<th>verifier-selected</th>");
  });

  it("is in the JSON as data, and null when the run has none", () => {
    const summary = { runId: "r2", groups: [] } as unknown as RunSummary;
    const json = (bundle: typeof without) =>
      JSON.parse(renderReportJson(summary, bundle)) as { ablation: unknown };
    expect(json(withAblation).ablation).toEqual(ABLATION);
    expect(json(without).ablation).toBeNull();
  });

  it("shows no ablation section for a run without one (one criterion, one variant)", () => {
    expect(renderReportTable(without)).not.toContain("Selection ablation");
    expect(renderReportHtml(without)).not.toContain('data-section="ablation"');
    expect(renderReportHtml(withAblation)).toContain('data-section="ablation"');
  });
});
