import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { calibrationSummary } from "@assay/core";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderReportHtml } from "../src/index.js";
import { CALIBRATION_POINTS, COMPARE, REPORT, TREND } from "./support/bundle.js";

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
          label: g.querySelector("text.value")?.textContent ?? "",
          // The package compiles without DOM types; getBBox is SVGGraphicsElement's.
          height: (
            g.querySelector("rect") as unknown as { getBBox(): { height: number } }
          ).getBBox().height,
        })),
      );

    const accuracy = await bars("accuracy");
    expect(accuracy.filter((b) => b.series === "r2").map((b) => [b.category, b.label])).toEqual([
      ["pass@1", "50.0%"],
      ["selected", "70.0%"],
      ["oracle", "90.0%"],
    ]);
    expect(accuracy.filter((b) => b.series === "r1").map((b) => b.label)).toEqual([
      "40.0%",
      "60.0%",
      "90.0%",
    ]);
    // Drawn to scale: on a 0..1 axis the 90% bar is 9/5 the height of the 50% one.
    const [pass1, , oracle] = accuracy.filter((b) => b.series === "r2");
    expect((oracle?.height ?? 0) / (pass1?.height ?? 1)).toBeCloseTo(1.8, 2);

    const histogram = await bars("histogram-judge");
    expect(histogram.map((b) => Number(b.label))).toEqual([1, 0, 2, 3, 4, 5, 6, 7, 4, 4]);

    const truncation = await bars("truncation");
    expect(truncation.map((b) => [b.category, b.label])).toEqual([
      ["0–512", "0.0%"],
      ["1k–2k", "6.3%"],
      ["4k–8k", "50.0%"],
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
