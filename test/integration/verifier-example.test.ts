import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ExitCode } from "@assay/cli";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { builtCli } from "@assay/test-support/built-entry";
import { type ProcessOutput, processOutput } from "@assay/test-support/process-output";
import { readmeBlock } from "@assay/test-support/readme-block";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// `npm run example:verifier` runs this script after a build: the tiny verifier, two nights
// of best-of-N candidates, and their comparison as a table and as report.html.
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SCRIPT = join(ROOT, "examples/best-of-n/run-example.mjs");
const CHROMIUM = "/usr/bin/chromium";
const TMP = join(ROOT, "test/.tmp");

const out = mkdtempSync(join(tmpdir(), "assay-example-"));
const store = join(out, "store");
let example: ProcessOutput;

beforeAll(async () => {
  // The example runs the built CLI.
  builtCli();
  const child = spawn(process.execPath, [SCRIPT, out], { stdio: ["ignore", "pipe", "pipe"] });
  example = await processOutput(child);
}, 600_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("the best-of-N example", () => {
  it("scores two nights and prints their paired differences, by kind", () => {
    expect(example.code, example.stderr).toBe(ExitCode.ok);
    const text = example.stdout;
    expect(text).toContain(
      "Paired differences: night-2 minus night-1 (95% paired bootstrap interval over tasks, 2000 resamples, seed 1)",
    );
    // pass@1 and the exact means follow from labels and `exact`, not from the tiny model.
    expect(text).toMatch(/pass@1\s+│\s+90\.0% \(27\/30\)\s+│\s+96\.7% \(29\/30\)/);
    expect(text).toMatch(
      /pass@1\s+│\s+30\s+│\s+90\.0%\s+│\s+96\.7%\s+│\s+-6\.7 pts\s+│.*│ within noise/,
    );
    expect(text).toMatch(
      /mean exact\s+│\s+16\s+│\s+0\.2656\s+│\s+0\.4063\s+│\s+-0\.1406\s+│.*│ lower: beyond noise/,
    );
    expect(text).toMatch(/mean verifier\s+│\s+30\s+│/);
    // best-of-n declares no fields.metadata: its slices are read from raw rows, and say so.
    expect(text).toMatch(
      /By metadata\.kind \(from raw rows: field not declared in fields\.metadata\)\n.*\n│\s+│ open\s+│ short\s+│/,
    );
    expect(text).toMatch(/tasks \/ samples\s+│ 14 \/ 56\s+│ 16 \/ 64/);
    // The two incident-log tasks (4 candidates each) do not fit the window: 8 cut questions.
    expect(text).toMatch(/cut to fit\s+│ 6\.7% \(8\/120\)\s+│ 6\.7% \(8\/120\)/);
    expect(text).toMatch(/cost per solved task\s+│ \d\.\d+ USD\s+│ \d\.\d+ USD/);
    expect(example.stderr).toContain(`Wrote ${out}/report.html`);
  });

  it("prints the paired differences docs/cli.md quotes", () => {
    expect(example.code, example.stderr).toBe(ExitCode.ok);
    expect(example.stdout).toContain(
      readmeBlock("The paired differences read:", "docs/cli.md").join("\n"),
    );
  });

  it("writes report.html with the comparison and the slices, self-contained", () => {
    const html = readFileSync(join(out, "report.html"), "utf8");
    expect(html).toContain('data-section="comparison"');
    expect(html).toMatch(/<tr data-metric="exact" data-kind="scorer"[^>]*data-verdict="real"/);
    expect(html).toMatch(/<tr data-metric="pass@1" data-kind="accuracy"[^>]*data-verdict="noise"/);
    expect(html).toContain('<th data-slice="open">open</th><th data-slice="short">short</th>');
    expect(html).not.toMatch(/<script|<link|https?:\/\/(?!www\.w3\.org)/);
  });

  it("answers --compare in JSON with the resampling it used", async () => {
    const args = ["report", "night-2", "--compare", "night-1", "--db", store, "--json"];
    const { code, stdout, stderr } = await assayInProcess([
      ...args,
      "--by",
      "metadata.topic",
      "--resamples",
      "300",
      "--seed",
      "9",
    ]);
    expect(code, stderr).toBe(ExitCode.ok);
    const json = JSON.parse(stdout);
    expect(json.comparison).toMatchObject({
      runId: "night-2",
      baselineRunId: "night-1",
      resamples: 300,
      seed: 9,
      confidence: 0.95,
    });
    expect(json.comparison.differences.map((d: { metric: string }) => d.metric)).toEqual([
      "pass@1",
      "selected",
      "oracle",
      "exact",
      "f1",
      "verifier",
    ]);
    expect(json.slices.by).toBe("metadata.topic");
    expect(json.slices.slices.map((s: { value: string }) => s.value)).toContain("ops");

    const badField = await assayInProcess([...args, "--by", "kind"]);
    expect(badField.code).toBe(ExitCode.usage);
    expect(badField.stderr).toMatch(/`--by` to be a metadata field such as metadata\.kind/);
    const badResamples = await assayInProcess([...args, "--resamples", "0"]);
    expect(badResamples.code).toBe(ExitCode.usage);
    expect(badResamples.stderr).toMatch(/--resamples to be an integer from 1 to 4294967295/);
  });

  it("shows a truncated sample with its cut, its usage and its text", async () => {
    const { code, stdout, stderr } = await assayInProcess([
      "show",
      "night-2",
      "open-13#0",
      "--db",
      store,
    ]);
    expect(code, stderr).toBe(ExitCode.ok);
    expect(stdout).toContain("dataset   examples/best-of-n/night-2.jsonl, line");
    expect(stdout).toContain("Here is the application log of last night's incident:");
    expect(stdout).toMatch(
      /verifier\s+│ open-ended\s+│ scored\s+│\s+0\.\d{4}\s+│\s+│ \d+ → \d+ tokens \(question cut \d+, policy error\)/,
    );
    expect(stdout).toMatch(/\.models\/example-verifier: \d+ in, 0 out, [\d.]+ ms on cpu/);
    expect(stdout).toMatch(/generator llama-3\.1-8b-instruct: \d+ in, \d+ out/);
    // The cut is marked where it fell in the question, with what the verifier saw of it.
    const question = stdout.slice(stdout.indexOf("Question (cut to fit: marked where)"));
    const mark = question.match(
      /\n {2}\[… (\d+) tokens cut for verifier[^\]]*: the verifier saw the text above …\]\n/,
    );
    expect(mark, stdout).not.toBeNull();
    const seen = stdout.match(
      /What the verifier saw\n {2}verifier[^:]*: saw the first (\d+) characters of the question \((\d+) of (\d+) tokens; (\d+) cut\)/,
    );
    expect(seen, stdout).not.toBeNull();
    expect(Number(seen?.[4])).toBe(Number(mark?.[1]));
    expect(Number(seen?.[2]) + Number(seen?.[4])).toBe(Number(seen?.[3]));
    // The text above the mark is what the verifier kept: the question's first characters.
    const before = question.slice(question.indexOf("\n") + 1, mark?.index ?? 0);
    const kept = before
      .split("\n")
      .map((line) => line.slice(2))
      .join("\n");
    expect(kept.length).toBe(Number(seen?.[1]));
    expect(kept.startsWith("Here is the application log of last night's incident:")).toBe(true);
  });
});

const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(
    `Skipping the example's screenshot: ${CHROMIUM} is missing (apt-get install -y chromium).`,
  );
}

describe.skipIf(!hasChromium)("the example's report.html in a real browser", () => {
  it("shows the verdicts and the slices, and takes docs/cli.md's screenshot", async () => {
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1000, height: 1000 } });
      await page.goto(pathToFileURL(join(out, "report.html")).href);
      const verdicts = await page.$$eval("[data-table=comparison] tr[data-metric]", (rows) =>
        rows.map((r) => [r.getAttribute("data-metric"), r.querySelector(".verdict")?.textContent]),
      );
      expect(verdicts).toContainEqual(["pass@1", "within noise"]);
      expect(verdicts).toContainEqual(["exact", "lower: beyond noise"]);
      // A marked row is drawn apart from the others.
      const background = (metric: string) =>
        page.$eval(
          `tr[data-metric="${metric}"]`,
          (r) => r.ownerDocument.defaultView?.getComputedStyle(r).backgroundColor,
        );
      expect(await background("pass@1")).toMatch(/^rgba?\(/);
      expect(await background("exact")).not.toBe(await background("pass@1"));
      const sliceHeads = await page.$$eval("[data-table=slices] thead th[data-slice]", (ths) =>
        ths.map((th) => th.textContent),
      );
      expect(sliceHeads).toEqual(["open", "short"]);

      // Headline cards and the paired differences: what docs/cli.md shows, kept small.
      const bottom = await page.$eval(
        "[data-section=comparison]",
        (section) => section.getBoundingClientRect().bottom,
      );
      // `npm run example:screenshot` copies it to examples/best-of-n/report.png (docs/cli.md's).
      const shot = join(TMP, "example-report.png");
      await page.screenshot({
        path: shot,
        clip: { x: 0, y: 0, width: 1000, height: Math.ceil(bottom) + 16 },
      });
      expect(statSync(shot).size).toBeGreaterThan(10_000);
    } finally {
      await browser.close();
    }
  });
});
