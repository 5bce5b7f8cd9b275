import { describe, expect, it } from "vitest";
import { renderReportHtml, renderReportTable } from "../src/index.js";
import { COMPARE, REPORT, TREND } from "./support/bundle.js";

const bundle = { report: REPORT, compare: COMPARE, trend: TREND };

describe("HTML report", () => {
  const html = renderReportHtml(bundle);

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
});

describe("table report", () => {
  it("puts the three accuracies and cost per solved task side by side for both runs", () => {
    const text = renderReportTable(bundle);
    expect(text).toMatch(/pass@1\s+│?\s*50\.0% \(5\/10\)\s+│?\s*40\.0% \(4\/10\)/);
    expect(text).toMatch(/verifier-selected\s+│?\s*70\.0% \(7\/10\)/);
    expect(text).toContain("0.0500 USD");
    expect(text).toContain("Trend (oldest first)");
  });
});
