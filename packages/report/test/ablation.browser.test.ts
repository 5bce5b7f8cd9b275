import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderReportHtml } from "../src/index.js";
import { ABLATION } from "./support/ablation.js";
import { REPORT, TREND } from "./support/bundle.js";

const CHROMIUM = "/usr/bin/chromium";
const TMP = fileURLToPath(new URL("../../../test/.tmp/", import.meta.url));
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(`Skipping the browser test: ${CHROMIUM} is missing (apt-get install -y chromium).`);
}

describe.skipIf(!hasChromium)("selection ablation in the HTML report, in a real browser", () => {
  let browser: Browser;
  const file = `${TMP}ablation-report.html`;

  beforeAll(async () => {
    await mkdir(TMP, { recursive: true });
    await writeFile(
      file,
      renderReportHtml({ report: REPORT, compare: null, trend: TREND, ablation: ABLATION }),
    );
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
    });
  });
  afterAll(() => browser?.close());

  it("draws a bar per row to scale and tables each row against the run's mean", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(pathToFileURL(file).href);

    const bars = await page.$$eval('[data-chart="ablation"] g.bar', (groups) =>
      groups.map((g) => ({
        category: g.getAttribute("data-category") ?? "",
        label: g.querySelector("text.value")?.textContent ?? "",
        height: (g.querySelector("rect") as unknown as { getBBox(): { height: number } }).getBBox()
          .height,
      })),
    );
    expect(bars.map((b) => [b.category, b.label])).toEqual([
      ["all (run)", "70.0%"],
      ["spec", "80.0%"],
      ["output", "70.0%"],
      ["errors", "40.0%"],
      ["K=1", "60.0%"],
      ["K=2", "70.0%"],
    ]);
    // On the 0..1 axis `spec` alone (80%) stands twice as tall as `errors` alone (40%).
    const height = (category: string) => bars.find((b) => b.category === category)?.height ?? 0;
    expect(height("spec") / height("errors")).toBeCloseTo(2, 2);

    const rows = await page.$$eval('[data-table="ablation"] tbody tr', (trs) =>
      trs.map((tr) => [
        tr.getAttribute("data-row"),
        ...[...tr.querySelectorAll("th, td")].map((cell) => cell.textContent ?? ""),
      ]),
    );
    expect(rows).toEqual([
      ["full", "mean of all 3 criteria × 2 variants (the run)", "70.0% (7/10)", "", "1", "1"],
      ["criterion:spec", "criterion spec alone", "80.0% (8/10)", "+10.0 pp", "1", "0"],
      ["criterion:output", "criterion output alone", "70.0% (7/10)", "±0.0 pp", "1", "2"],
      ["criterion:errors", "criterion errors alone", "40.0% (4/10)", "−30.0 pp", "2", "3"],
      ["variants:1", "first variant, all criteria", "60.0% (6/10)", "−10.0 pp", "1", "2"],
      ["variants:2", "first 2 variants, all criteria", "70.0% (7/10)", "±0.0 pp", "1", "1"],
    ]);
    // The section is on the page, not hidden or collapsed to nothing.
    const box = await page.locator('[data-section="ablation"]').boundingBox();
    expect(box?.height ?? 0).toBeGreaterThan(200);
    await page.screenshot({ path: `${TMP}ablation-report.png`, fullPage: true });
  });
});
