import {
  calibrationSummary,
  SELF_PREFERENCE_MIN_ANSWERS,
  type SelfPreference,
  selfPreference,
} from "@assay/core";
import { describe, expect, it } from "vitest";
import { renderReportHtml, renderReportTable } from "../src/index.js";
import { CALIBRATION_POINTS, COMPARE, REPORT, TREND } from "./support/bundle.js";
import { PLAIN, PLAIN_BEFORE, PLAIN_TREND } from "./support/no-selection.js";

const bundle = { report: REPORT, compare: COMPARE, trend: TREND };

describe("HTML report", () => {
  const html = renderReportHtml(bundle);

  it("points the table and the HTML to the one page that defines every figure", () => {
    expect(renderReportTable(bundle).trimEnd().split("\n").at(-1)).toContain("docs/figures.md");
    expect(renderReportHtml(bundle)).toMatch(/<footer><p>[^<]*docs\/figures\.md/);
  });

  it("is one self-contained file: no script, no link, no network", () => {
    expect(html).not.toMatch(/<script|<link|<img|@import|url\(http|https?:\/\/(?!www\.w3\.org)/i);
    expect(html).toContain("<svg");
  });

  it("escapes names that come from users", () => {
    expect(html).toContain("series nightly &lt;qa&gt;");
    expect(html).not.toContain("nightly <qa>");
  });

  it("carries each bar's number in its attributes", () => {
    expect(html).toContain('data-series="r2" data-category="selected" data-value="0.7"');
    expect(html).toContain('data-series="cost per solved task" data-category="r1b" data-value=""');
  });

  it("labels each histogram bin with the range it covers, the last one up to 1.0", () => {
    const chart = html.slice(html.indexOf('data-chart="histogram-judge"'));
    const bins = [...chart.matchAll(/data-category="([^"]*)"/g)].map((m) => m[1]);
    expect(bins).toEqual([
      "0.0–0.1",
      "0.1–0.2",
      "0.2–0.3",
      "0.3–0.4",
      "0.4–0.5",
      "0.5–0.6",
      "0.6–0.7",
      "0.7–0.8",
      "0.8–0.9",
      "0.9–1.0",
    ]);
    expect(chart).toContain("the last also holds 1.0");
  });

  it("shows how many tasks had no scored candidate", () => {
    expect(html).toMatch(
      /data-metric="unselected"><div class="label">no scored candidate<\/div><div class="value">1<\/div>/,
    );
  });
});

describe("table report", () => {
  it("says a run was abandoned, and shows runs without rollups in the trend by state", () => {
    const abandoned = { ...REPORT.run, abandonedAt: "2026-11-03T04:00:00.000Z" };
    const idle = (runId: string, state: "unfinished" | "abandoned") => ({
      ...(TREND[0] as (typeof TREND)[number]),
      run: { ...REPORT.run, runId },
      state,
      pass1: null,
      selected: null,
      oracle: null,
      scorerMeans: [],
    });
    const text = renderReportTable({
      report: { ...REPORT, run: abandoned },
      compare: null,
      trend: [...TREND, idle("gave-up", "abandoned"), idle("still-going", "unfinished")],
    });
    expect(text).toContain(
      `Run ${REPORT.run.runId} was abandoned at 2026-11-03T04:00:00.000Z: it will never finish`,
    );
    expect(text).toMatch(/gave-up \(abandoned\)\s+│?\s*\S+\s+│?\s*n\/a/);
    expect(text).toContain("still-going (unfinished)");
  });

  it("puts the three accuracies and cost per solved task side by side for both runs", () => {
    const text = renderReportTable(bundle);
    expect(text).toMatch(/pass@1\s+│?\s*50\.0% \(5\/10\)\s+│?\s*40\.0% \(4\/10\)/);
    expect(text).toMatch(/verifier-selected\s+│?\s*70\.0% \(7\/10\)/);
    expect(text).toContain("0.0500 USD");
    expect(text).toContain("Trend (oldest first)");
  });

  it("shows how many tasks had no scored candidate, n/a before selection ran", () => {
    const unselected = {
      ...COMPARE,
      accuracy: { ...COMPARE.accuracy, unselected: 2, methods: [] },
    };
    const text = renderReportTable({ ...bundle, compare: unselected });
    expect(text).toMatch(/no scored candidate\s+│?\s*1 task, counted unsolved\s+│?\s*n\/a/);
    const two = { ...REPORT, accuracy: { ...REPORT.accuracy, unselected: 2 } };
    expect(renderReportTable({ ...bundle, report: two, compare: null })).toContain(
      "2 tasks, counted unsolved",
    );
  });
});

describe("table report of runs without selection", () => {
  const text = renderReportTable({ report: PLAIN, compare: PLAIN_BEFORE, trend: PLAIN_TREND });

  it("leads with each scorer's mean or pass rate, its n and its interval, for both runs", () => {
    expect(text).toMatch(
      /exact pass rate\s+│?\s*62\.5% \(5\/8\), 95% 30\.6%–86\.3%\s+│?\s*37\.5% \(3\/8\), 95% 13\.7%–69\.4%/,
    );
    expect(text).toMatch(/judge mean\s+│?\s*0\.734 \(n=8\), 95% 0\.610–0\.858/);
  });

  it("leaves out the selection rows and says in one line why", () => {
    const headline = text.slice(0, text.indexOf("No selection is stored"));
    expect(headline).toContain("exact pass rate");
    expect(headline).not.toMatch(/pass@1|verifier-selected|oracle|top tie|per solved task|n\/a/);
    expect(text).toContain("No selection is stored, so pass@1, verifier-selected, oracle");
    expect(text).toMatch(/cut to fit\s+│?\s*100\.0% \(8\/8\)/);
  });

  it("carries the scorer means in the trend", () => {
    const trend = text.slice(text.indexOf("Trend (oldest first)"));
    expect(trend).toMatch(/plain-1\s.*37\.5% \(3\/8\)\s.*0\.650 \(n=8\)/);
    expect(trend).toMatch(/plain-2\s.*62\.5% \(5\/8\)\s.*0\.734 \(n=8\)/);
    expect(trend).not.toContain("cost/solved");
  });
});

describe("HTML report of a priced run without selection", () => {
  const cost = {
    generation: 0.02,
    verification: 0.06,
    total: 0.08,
    currency: "USD",
    warnings: [],
    solvedTasks: 0,
    samples: 8,
    perSolvedTask: { generation: null, verification: null, total: null },
    perSample: 0.01,
  };
  const html = renderReportHtml({ report: { ...PLAIN, cost }, compare: null, trend: PLAIN_TREND });

  it("says what the run cost, and prints no per-solved-task figure", () => {
    expect(html).toMatch(
      /data-metric="cost-total"><div class="label">cost<\/div><div class="value">0\.0800 USD<\/div><div class="detail">8 samples; 0\.0100 USD each<\/div>/,
    );
    expect(html).not.toContain("per solved task (");
    expect(html).not.toContain('data-chart="cost-trend"');
    const cards = html.slice(html.indexOf('<section class="cards">'), html.indexOf("</section>"));
    expect(cards).not.toMatch(/n\/a|unknown|0 of 0/);
  });
});

describe("calibration in reports", () => {
  const calibration = [
    { scorer: "judge", criterion: "", summary: calibrationSummary(CALIBRATION_POINTS) },
  ];
  const labelled = { report: { ...REPORT, calibration }, compare: null, trend: TREND };

  it("prints AUROC, accuracy, Brier and ECE per verifier scorer in the table", () => {
    const text = renderReportTable(labelled);
    expect(text).toContain("Calibration against labels");
    // Of 15 positive–negative pairs, 10 ordered right and one tie (0.55) counting half.
    const s = calibration[0]?.summary;
    expect(text).toMatch(
      new RegExp(
        `judge\\s*│\\s*8 \\(5 true\\)\\s*│\\s*${s?.auroc?.toFixed(3)}\\s*│\\s*${s?.accuracy?.toFixed(3)}\\s*│\\s*${s?.brier?.toFixed(3)}\\s*│\\s*${s?.ece?.toFixed(3)}`,
      ),
    );
    expect(s?.auroc).toBeCloseTo(10.5 / 15, 12);
  });

  it("leaves the section out when the run has no labelled verifier scores", () => {
    expect(
      renderReportTable({ ...labelled, report: { ...REPORT, calibration: [] } }),
    ).not.toContain("Calibration");
    expect(renderReportHtml({ ...labelled, report: REPORT })).not.toContain("Reliability");
  });

  it("draws a reliability diagram with one dot per non-empty bin", () => {
    const html = renderReportHtml(labelled);
    const chart = html.slice(html.indexOf('data-chart="reliability-judge"'));
    const dots = [...chart.matchAll(/data-bin="(\d+)"[^>]*data-count="(\d+)"/g)].map((m) => [
      Number(m[1]),
      Number(m[2]),
    ]);
    expect(dots).toEqual([
      [1, 2],
      [5, 2],
      [9, 4],
    ]);
    expect(html).toContain('data-table="calibration"');
  });
});

describe("self-preference in reports", () => {
  const n = SELF_PREFERENCE_MIN_ANSWERS;
  const cell = (generator: string, label: boolean, value: number, answers = n) => ({
    generator,
    label,
    value,
    answers,
  });
  const check = selfPreference("verifier", "qwen", [
    cell("qwen3", true, 0.9),
    cell("qwen3", false, 0.6),
    cell("llama", true, 0.8),
    cell("llama", false, 0.3),
  ]);
  const table = (checks: SelfPreference[]) =>
    renderReportTable({
      report: { ...REPORT, selfPreference: checks },
      compare: null,
      trend: TREND,
    });

  it("prints the means and answers by family and correctness, the gap with its interval, and a warning", () => {
    const text = table([check]);
    expect(text).toMatch(/same family\s*│\s*0\.900 \(20\)\s*│\s*0\.600 \(20\)/);
    expect(text).toMatch(/other generators\s*│\s*0\.800 \(20\)\s*│\s*0\.300 \(20\)/);
    expect(text).toContain(
      "verifier: gap 0.200 (95% interval 0.200 to 0.200); answers: same family 20 correct, 20 incorrect; other generators 20 correct, 20 incorrect",
    );
    expect(text).toMatch(
      /WARNING verifier scores qwen answers 0\.200 higher .* \(95% interval 0\.200 to 0\.200, above 0; threshold 0\.05\)/,
    );
  });

  it("says why it does not warn: too few answers, or an interval that holds 0", () => {
    const few = selfPreference("verifier", "qwen", [
      cell("qwen3", true, 0.9, 3),
      cell("qwen3", false, 0.6, 3),
      cell("llama", true, 0.8, 3),
      cell("llama", false, 0.3, 3),
    ]);
    expect(table([few])).toContain("no warning: too few answers (each group needs 20)");
    expect(table([few])).not.toContain("WARNING");
    const noisy = selfPreference(
      "verifier",
      "qwen",
      [true, false].flatMap((label) =>
        ["qwen3", "llama"].flatMap((generator) =>
          Array.from({ length: n }, (_, i) => cell(generator, label, i % 2, 1)),
        ),
      ),
    );
    expect(noisy.gap).toBe(0);
    expect(table([noisy])).toContain("no warning: the interval holds 0, so the gap may be noise");
  });

  it("shows the same figures and the warning in the HTML report, escaped", () => {
    const html = renderReportHtml({
      report: { ...REPORT, selfPreference: [{ ...check, family: "<qwen>" }] },
      compare: null,
      trend: TREND,
    });
    const gap = html.match(/data-scorer="verifier" data-gap="([^"]*)"/)?.[1];
    expect(Number(gap)).toBeCloseTo(0.2, 12);
    const [, low, high] = html.match(/data-low="([^"]*)" data-high="([^"]*)"/) ?? [];
    expect(Number(low)).toBeCloseTo(0.2, 12);
    expect(Number(high)).toBeCloseTo(0.2, 12);
    expect(html).toContain('data-enough-answers="true"');
    expect(html).toContain('data-warning="true"');
    expect(html).toContain("95% interval 0.200 to 0.200");
    expect(html).toContain("&lt;qwen&gt;");
    expect(html).not.toContain("<qwen>");
    expect(renderReportHtml({ report: REPORT, compare: null, trend: TREND })).not.toContain(
      "Self-preference",
    );
  });
});

describe("HTML report of a run whose pass rule decides solved tasks", () => {
  const cost = {
    generation: 0.02,
    verification: 0.06,
    total: 0.08,
    currency: "USD",
    warnings: [],
    solvedTasks: 5,
    samples: 8,
    perSolvedTask: { generation: 0.004, verification: 0.012, total: 0.016 },
    perSample: 0.01,
  };
  const solved = { decidedBy: "pass_rule" as const, tasks: 8, solved: 5 };
  const report = { ...PLAIN, cost, solved };
  const html = renderReportHtml({ report, compare: null, trend: PLAIN_TREND });
  const text = renderReportTable({ report, compare: null, trend: PLAIN_TREND });

  it("shows the solved tasks and cost per solved task the text report shows", () => {
    expect(text).toMatch(/solved \(pass rule\)\s+│?\s*62\.5% \(5\/8\)/);
    expect(text).toMatch(/cost per solved task\s+│?\s*0\.0160 USD/);
    expect(html).toMatch(
      /data-metric="solved"><div class="label">solved \(pass rule\)<\/div><div class="value">62\.5%<\/div><div class="detail">5 of 8<\/div>/,
    );
    expect(html).toMatch(
      /data-metric="cost-per-solved"><div class="label">cost per solved task<\/div><div class="value">0\.0160 USD<\/div><div class="detail">5 solved<\/div>/,
    );
    expect(html).toContain("<th>per solved task (5)</th>");
    expect(html).toContain("a task is solved when its first candidate passes the spec");
  });
});

describe("cost by model in reports", () => {
  const model = (role: "generator" | "verifier", name: string, cost: number | null) => ({
    role,
    model: name,
    inputTokens: 1000,
    cachedInputTokens: 0,
    cacheWriteTokens: 300,
    cacheWrite1hTokens: 100,
    outputTokens: 50,
    computeMs: null,
    rows: 4,
    cost,
  });
  const cost = {
    generation: 0.03,
    verification: 0.01,
    total: 0.04,
    currency: "USD",
    warnings: [],
    solvedTasks: 4,
    samples: 8,
    perSolvedTask: { generation: 0.0075, verification: 0.0025, total: 0.01 },
    perSample: 0.005,
    byModel: [
      { ...model("generator", "gen-<a>", 0.02), solved: 3 },
      { ...model("generator", "gen-b", 0.01), solved: null },
      model("verifier", "judge", 0.01),
    ],
  };
  const solved = { decidedBy: "pass_rule" as const, tasks: 8, solved: 4 };
  const report = { ...PLAIN, cost, solved };
  const html = renderReportHtml({ report, compare: null, trend: PLAIN_TREND });
  const text = renderReportTable({ report, compare: null, trend: PLAIN_TREND });

  it("gives each generator model the tasks it solved and its cost per such task, in both formats", () => {
    expect(text).toContain("Cost by model (4 solved tasks)");
    // gen-<a>: 0.02 over the run's 4 solved tasks, and over the 3 it solved itself.
    expect(text).toMatch(/gen-<a>.*0\.0200 USD.*0\.005000 USD.*│\s*3\s*│.*0\.006667 USD/);
    expect(html).toContain('data-section="cost-by-model"');
    const row = (name: string) =>
      new RegExp(`<tr data-role="[a-z]+" data-model="${name}">(.*?)</tr>`).exec(html)?.[1];
    const cells = (name: string) =>
      [...(row(name) ?? "").matchAll(/<t[dh]>(.*?)<\/t[dh]>/g)].map((m) => m[1]);
    expect(cells("gen-&lt;a&gt;")).toEqual([
      "generator",
      "gen-&lt;a&gt;",
      "1000",
      "0",
      "200",
      "100",
      "50",
      "–",
      "0.0200 USD",
      "0.005000 USD",
      "3",
      "0.006667 USD",
    ]);
    // A run rolled up before its models' solved tasks were counted says so; a verifier has none.
    expect(cells("gen-b").slice(-2)).toEqual(["unknown", "unknown"]);
    expect(cells("judge").slice(-2)).toEqual(["–", "–"]);
    expect(text).toMatch(/gen-b.*unknown.*unknown/);
  });
});
