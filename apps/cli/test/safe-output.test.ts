import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExportRow } from "@assay/core";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";
import { neutraliseCell, scoreCsvEncoder } from "../src/score-csv.js";

// Bytes from a dataset reach two dangerous places: a spreadsheet (a cell that starts with
// `=` is a formula) and a terminal (ESC starts control sequences, U+202E reverses text).
// Ids with control characters are refused at ingest; the refusal quotes them, escaped.
const work = mkdtempSync(join(tmpdir(), "assay-safe-output-"));
const db = join(work, "store");
afterAll(() => rmSync(work, { recursive: true, force: true }));

// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const HOSTILE_ID = "evil\u001b[2J\u001b]0;pwned\u0007\u009b31m\u202etxt.exe";
const FORMULA_IDS = ['=HYPERLINK("http://evil/","x")', "+1", "-2", "@SUM(A1)"];
const CONTROL_IDS = ["\tTAB", "\rCR"];

function line(id: string): string {
  return JSON.stringify({ id, question: "q", answer: "x", target: ["x"] });
}

describe("a dataset with hostile ids", () => {
  const dataset = join(work, "hostile.jsonl");
  writeFileSync(
    dataset,
    [
      ...FORMULA_IDS.map(line),
      ...CONTROL_IDS.map(line),
      line("plain"),
      line(HOSTILE_ID),
      // Node's JSON error quotes the line, escape sequence and all.
      '{"id": x\u001b[31m',
    ].join("\n"),
  );

  it("prints input errors and summaries with control characters escaped", async () => {
    const run = await assayInProcess(["run", dataset, "--run-id", "hostile", "--db", db]);
    expect(run.code, run.stderr).toBe(ExitCode.inputErrors);
    expect(run.stdout).toContain(
      "field `id`: id must be printable, but has U+001B (a control, zero-width or bidi character) at index 4",
    );
    expect(run.stdout).toContain('"{"id": x\\u001b[31m" is not valid JSON');
    expect(run.stdout).not.toMatch(RAW_CONTROL);
    expect(run.stderr).not.toMatch(RAW_CONTROL);

    const strict = await assayInProcess(["run", dataset, "--strict", "--db", db]);
    expect(strict.code).toBe(ExitCode.refused);
    expect(strict.stderr).toMatch(/--strict: refused .* 4 invalid lines/);
    expect(strict.stderr).toContain('"{"id": x\\u001b[31m" is not valid JSON');
    expect(strict.stderr).not.toMatch(RAW_CONTROL);
  });

  it("keeps JSON output valid and exact while escaping it for the terminal", async () => {
    const jsonl = await assayInProcess(["export", "hostile", "--db", db]);
    expect(jsonl.code, jsonl.stderr).toBe(ExitCode.ok);
    expect(jsonl.stdout).not.toMatch(RAW_CONTROL);
    const ids = jsonl.stdout
      .trim()
      .split("\n")
      .map((row) => (JSON.parse(row) as ExportRow).sample_id);
    expect(new Set(ids)).toEqual(new Set([...FORMULA_IDS, "plain"]));

    const report = await assayInProcess(["report", "hostile", "--db", db, "--json"]);
    expect(report.code, report.stderr).toBe(ExitCode.ok);
    expect(report.stdout).not.toMatch(RAW_CONTROL);
    expect(JSON.parse(report.stdout).inputErrors).toBe(4);
  });

  it("writes text cells a spreadsheet will not run as formulas", async () => {
    const out = join(work, "scores.csv");
    const csv = await assayInProcess([
      "export",
      "hostile",
      "--db",
      db,
      "--format",
      "csv",
      "--out",
      out,
    ]);
    expect(csv.code, csv.stderr).toBe(ExitCode.ok);
    const text = readFileSync(out, "utf8");
    expect(text).toContain(`"'=HYPERLINK(""http://evil/"",""x"")"`);
    for (const id of ["'+1", "'-2", "'@SUM(A1)"]) expect(text).toContain(`${id},`);
    expect(text).not.toMatch(/^[=+\-@]/m);
  });
});

describe("CSV cells", () => {
  it("keep numbers in numeric columns and neutralise the same text in text columns", async () => {
    const row: ExportRow = {
      run_id: "r",
      sample_id: "-0.5",
      task_id: "=1+1",
      scorer: "exact",
      criterion: "",
      repetition: 0,
      status: "scored",
      value: -0.5,
      reason: null,
      rule: "@rule",
      detail: { note: "=cmd" },
    };
    const encoder = scoreCsvEncoder();
    encoder.end(row);
    let text = "";
    for await (const chunk of encoder) text += chunk;
    expect(text.split("\n")[1]).toBe(
      `r,'-0.5,'=1+1,exact,,0,scored,-0.5,,'@rule,"{""note"":""=cmd""}"`,
    );
  });

  it("never start with a formula character, and change nothing else", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 40 }), (text) => {
        const cell = neutraliseCell(text);
        expect(cell).not.toMatch(/^[=+\-@\t\r]/);
        expect(cell === text || cell === `'${text}`).toBe(true);
      }),
    );
  });
});
