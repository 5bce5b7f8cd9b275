import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ReportBundle } from "@assay/core";
import { calibrationSummary } from "@assay/core";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderReportHtml } from "../src/index.js";
import { CALIBRATION_POINTS, COMPARE, REPORT, TREND } from "./support/bundle.js";
import { COMPARISON } from "./support/comparison.js";
import { PLAIN, PLAIN_BEFORE, PLAIN_TREND } from "./support/no-selection.js";

const CHROMIUM = "/usr/bin/chromium";
const TMP = fileURLToPath(new URL("../../../test/.tmp/", import.meta.url));
const hasChromium = existsSync(CHROMIUM);

if (!hasChromium) {
  console.warn(`Skipping the browser test: ${CHROMIUM} is missing (apt-get install -y chromium).`);
}

interface DOMRectLike {
  x: number;
  y: number;
  width: number;
  height: number;
}

interface Bar {
  series: string;
  category: string;
  value: string;
  label: string;
  height: number;
}

describe.skipIf(!hasChromium)("HTML report in a real browser", () => {
  let browser: Browser;
  const file = `${TMP}report.html`;

  beforeAll(async () => {
    await mkdir(TMP, { recursive: true });
    const calibration = [
      { scorer: "judge", criterion: "", summary: calibrationSummary(CALIBRATION_POINTS) },
    ];
    await writeFile(
      file,
      renderReportHtml({ report: { ...REPORT, calibration }, compare: COMPARE, trend: TREND }),
    );
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
      ],
    });
  });
  afterAll(() => browser?.close());

  /** Opens the report of `bundle` as a file, as a reader would. */
  async function open(name: string, bundle: ReportBundle): Promise<Page> {
    const path = `${TMP}${name}.html`;
    await writeFile(path, renderReportHtml(bundle));
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(pathToFileURL(path).href);
    return page;
  }

  /** Each drawn bar of a chart: its run or series, its fill and its label. */
  const drawnBars = (page: Page, chart: string) =>
    page.$$eval(`[data-chart="${chart}"] g.bar:not(.missing)`, (groups) =>
      groups.map((g) => ({
        series: g.getAttribute("data-series") ?? "",
        category: g.getAttribute("data-category") ?? "",
        fill: g.querySelector("rect")?.getAttribute("fill") ?? "",
        label: g.getAttribute("data-label") ?? "",
        whisker: (() => {
          const line = g.querySelector("line.whisker") as unknown as {
            getBBox(): DOMRectLike;
          } | null;
          return line === null ? null : line.getBBox().height;
        })(),
      })),
    );

  it("leads a run without selection with its scorer means, and draws no empty chart", async () => {
    const page = await open("no-selection", {
      report: PLAIN,
      compare: PLAIN_BEFORE,
      trend: PLAIN_TREND,
    });
    const cards = await page.$$eval(".card", (nodes) =>
      nodes.map((n) => ({
        metric: n.getAttribute("data-metric"),
        label: n.querySelector(".label")?.textContent,
        value: n.querySelector(".value")?.textContent,
        detail: n.querySelector(".detail")?.textContent,
      })),
    );
    expect(cards).toContainEqual({
      metric: "scorer-exact",
      label: "exact pass rate",
      value: "62.5%",
      detail: "5 of 8 passed; 95% 30.6%–86.3%",
    });
    expect(cards).toContainEqual({
      metric: "scorer-judge",
      label: "judge mean",
      value: "0.734",
      detail: "8 scored; 95% 0.610–0.858",
    });
    // No card stands for a figure the run does not have.
    for (const card of cards) {
      expect(card.value).not.toBe("n/a");
      expect(card.detail).not.toMatch(/\b0 of 0\b/);
    }
    expect(cards.map((c) => c.metric)).not.toContain("pass1");
    expect(await page.textContent('[data-note="absent"]')).toContain("No selection is stored");

    // Sections that do not apply are left out, not drawn as hatched n/a bars.
    expect(await page.$$("g.bar.missing")).toHaveLength(0);
    expect(await page.$$('[data-chart="accuracy"], [data-chart="cost-trend"]')).toHaveLength(0);

    // The trend carries the scorer means, each run in its own colour, with its interval.
    const means = await drawnBars(page, "scorer-means");
    expect(means.map((b) => [b.series, b.category, b.label])).toEqual([
      ["plain-1", "exact", "37.5% (3/8)"],
      ["plain-2", "exact", "62.5% (5/8)"],
      ["plain-1", "judge", "0.650 (n=8)"],
      ["plain-2", "judge", "0.734 (n=8)"],
    ]);
    // Whiskers to the axis' scale: the judge's 0.610–0.858 is under half as long as the
    // exact pass rate's 0.306–0.863.
    const whisker = (i: number) => means[i]?.whisker ?? Number.NaN;
    expect(whisker(3) / whisker(1)).toBeCloseTo((0.858 - 0.61) / (0.863 - 0.306), 2);

    // A share with its count; an empty chart is one line saying why.
    expect((await drawnBars(page, "truncation")).map((b) => b.label)).toEqual(["100.0% (8/8)"]);
    expect(await page.$$('[data-chart="unscored"] svg')).toHaveLength(0);
    expect(await page.textContent('[data-chart="unscored"]')).toContain(
      "every one of the 16 results was scored",
    );
    await page.screenshot({ path: `${TMP}no-selection.png`, fullPage: true });
  });

  it("gives each run one colour in every chart", async () => {
    const page = await open("colours", { report: REPORT, compare: COMPARE, trend: TREND });
    const fills = new Map<string, Set<string>>();
    const note = (run: string, fill: string) =>
      fills.set(run, (fills.get(run) ?? new Set()).add(fill));
    for (const b of await drawnBars(page, "accuracy")) note(b.series, b.fill);
    for (const b of await drawnBars(page, "scorer-means")) note(b.series, b.fill);
    for (const b of await drawnBars(page, "cost-trend")) note(b.category, b.fill);
    // Charts of the reported run alone are in its colour too.
    for (const b of await drawnBars(page, "histogram-judge")) note("r2", b.fill);
    for (const b of await drawnBars(page, "truncation")) note("r2", b.fill);
    expect([...fills.keys()].sort()).toEqual(["r1", "r1b", "r2"]);
    for (const [run, colours] of fills) expect([run, colours.size]).toEqual([run, 1]);
    const colour = (run: string) => [...(fills.get(run) ?? [])][0];
    expect(new Set([colour("r1"), colour("r1b"), colour("r2")]).size).toBe(3);
  });

  it("draws each paired difference's interval as long as it is wide", async () => {
    const page = await open("comparison", {
      report: REPORT,
      compare: COMPARE,
      trend: TREND,
      comparison: COMPARISON,
    });
    const rows = await page.$$eval("[data-table=comparison] tr[data-metric]", (trs) =>
      trs.flatMap((tr) => {
        const line = tr.querySelector("line.range") as unknown as {
          getBBox(): DOMRectLike;
        } | null;
        if (line === null) return [];
        const width = Number(tr.getAttribute("data-high")) - Number(tr.getAttribute("data-low"));
        return [{ metric: tr.getAttribute("data-metric"), width, drawn: line.getBBox().width }];
      }),
    );
    expect(rows.map((r) => r.metric)).toEqual(["pass@1", "selected", "judge"]);
    const pxPerUnit = rows.map((r) => r.drawn / r.width);
    // One scale for the table: 0.05 wide is drawn 0.05/0.18 as long as 0.18 wide.
    for (const scale of pxPerUnit) expect(scale).toBeCloseTo(pxPerUnit[0] ?? 0, -1);
    const [pass1, selected] = rows;
    expect((selected?.drawn ?? 0) / (pass1?.drawn ?? 1)).toBeCloseTo(0.05 / 0.18, 1);
  });

  it("renders every chart with the run's numbers, offline, and saves a screenshot", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const requests: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith("file:")) requests.push(request.url());
    });
    await page.goto(pathToFileURL(file).href);

    const bars = async (chart: string): Promise<Bar[]> =>
      page.$$eval(`[data-chart="${chart}"] g.bar`, (groups) =>
        groups.map((g) => ({
          series: g.getAttribute("data-series") ?? "",
          category: g.getAttribute("data-category") ?? "",
          value: g.getAttribute("data-value") ?? "",
          label: g.getAttribute("data-label") ?? g.querySelector("text.value")?.textContent ?? "",
          // The package compiles without DOM types; getBBox is SVGGraphicsElement's.
          height: (
            g.querySelector("rect") as unknown as { getBBox(): { height: number } }
          ).getBBox().height,
        })),
      );

    const accuracy = await bars("accuracy");
    expect(accuracy.filter((b) => b.series === "r2").map((b) => [b.category, b.label])).toEqual([
      ["pass@1", "50.0% (5/10)"],
      ["selected", "70.0% (7/10)"],
      ["oracle", "90.0% (9/10)"],
    ]);
    expect(accuracy.filter((b) => b.series === "r1").map((b) => b.label)).toEqual([
      "40.0% (4/10)",
      "60.0% (6/10)",
      "90.0% (9/10)",
    ]);
    // Drawn to scale: on a 0..1 axis the 90% bar is 9/5 the height of the 50% one.
    const [pass1, , oracle] = accuracy.filter((b) => b.series === "r2");
    expect((oracle?.height ?? 0) / (pass1?.height ?? 1)).toBeCloseTo(1.8, 2);

    const histogram = await bars("histogram-judge");
    expect(histogram.map((b) => Number(b.label))).toEqual([1, 0, 2, 3, 4, 5, 6, 7, 4, 4]);

    const truncation = await bars("truncation");
    expect(truncation.map((b) => [b.category, b.label])).toEqual([
      ["0–512", "0.0% (0/20)"],
      ["1k–2k", "6.3% (1/16)"],
      ["4k–8k", "50.0% (2/4)"],
    ]);

    const cost = await bars("cost-trend");
    expect(cost.map((b) => [b.category, b.label])).toEqual([
      ["r1", "0.0600 USD"],
      ["r1b", "n/a"],
      ["r2", "0.0500 USD"],
    ]);

    const unscored = await bars("unscored");
    expect(unscored.map((b) => [b.category, b.label])).toEqual([
      ["overflow", "3"],
      ["no_score_mass", "1"],
    ]);

    const cards = await page.$$eval(".card", (nodes) =>
      nodes.map((n) => [n.getAttribute("data-metric"), n.querySelector(".value")?.textContent]),
    );
    expect(cards).toContainEqual(["cost-per-solved", "0.0500 USD"]);
    expect(cards).toContainEqual(["selected", "70.0%"]);

    // Reliability: each dot sits at (mean score, share true) on the plot's 0..1 axes.
    const dots = await page.$$eval('[data-chart="reliability-judge"] circle.bin', (circles) =>
      circles.map((c) => {
        const box = (c as unknown as { getBBox(): DOMRectLike }).getBBox();
        return {
          mean: Number(c.getAttribute("data-mean")),
          rate: Number(c.getAttribute("data-rate")),
          x: box.x + box.width / 2,
          y: box.y + box.height / 2,
        };
      }),
    );
    expect(dots).toHaveLength(3);
    const [low, , high] = dots;
    if (low === undefined || high === undefined) throw new Error("missing dots");
    const xPerUnit = (high.x - low.x) / (high.mean - low.mean);
    const yPerUnit = (high.y - low.y) / (high.rate - low.rate);
    expect(xPerUnit).toBeGreaterThan(100);
    // Up the page means more answers labelled true; both axes share one scale.
    expect(yPerUnit).toBeCloseTo(-xPerUnit, 0);

    expect(requests).toEqual([]);
    await page.screenshot({ path: `${TMP}report.png`, fullPage: true });
    expect(existsSync(`${TMP}report.png`)).toBe(true);
  });
});
