import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "@assay/store";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { queryRows } from "@assay/test-support/stores";
import { afterAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// A team's dataset in its own field names, read through the spec's `fields`, scores and
// stores exactly what the same data in Assay's names does; a mapping the dataset does not
// match is refused once, before any run exists; a changed mapping is a changed spec.
const work = mkdtempSync(join(tmpdir(), "assay-fields-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const store = join(work, "store");

const write = (name: string, text: string) => {
  const path = join(work, name);
  writeFileSync(path, text);
  return path;
};
const jsonl = (lines: unknown[]) => `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`;

const ROWS = [
  { id: "q1", question: "2+2?", answer: "4", target: "4", subject: "math", level: 1 },
  {
    id: "q2",
    question: "Capital of France?",
    answer: "Paris",
    target: "paris",
    subject: "geo",
    level: 2,
  },
  {
    id: 3,
    question: "Largest planet?",
    answer: "Saturn",
    target: "Jupiter",
    subject: "geo",
    level: 3,
  },
];
const CANDIDATES = {
  id: "t4",
  question: "3*3?",
  target: "9",
  subject: "math",
  level: 1,
  answers: [
    ["9", true],
    ["6", false],
  ],
} as const;

const assayLines = [
  ...ROWS.map(({ subject, level, ...row }) => ({ ...row, metadata: { subject, level } })),
  {
    id: CANDIDATES.id,
    question: CANDIDATES.question,
    target: CANDIDATES.target,
    candidates: CANDIDATES.answers.map(([answer, label]) => ({ answer, label })),
    metadata: { subject: CANDIDATES.subject, level: CANDIDATES.level },
  },
];
const teamLines = [
  ...ROWS.map((row) => ({
    row_id: row.id,
    prompt: row.question,
    completion: { text: row.answer, model: "m1" },
    "gold.v2": row.target,
    subject: row.subject,
    info: { level: row.level },
    notes: "not read",
  })),
  {
    row_id: CANDIDATES.id,
    prompt: CANDIDATES.question,
    "gold.v2": CANDIDATES.target,
    outputs: CANDIDATES.answers.map(([text, correct]) => ({ text, correct, seed: 1 })),
    subject: CANDIDATES.subject,
    info: { level: CANDIDATES.level },
  },
];

const RULES = `rules:
  - { name: maths, when: { metadata.subject: math }, scorers: [{ name: exact }] }
default:
  scorers: [{ name: f1 }, { name: match, args: { location: any, ignore_case: true } }]
`;
const FIELDS = `fields:
  id: row_id
  question: prompt
  answer: completion.text
  target: '["gold.v2"]'
  candidates: { from: outputs, answer: text, label: correct }
  metadata: [subject, info.level]
`;

const run = (dataset: string, spec: string, runId: string, ...more: string[]) =>
  assayInProcess(["run", dataset, "--spec", spec, "--run-id", runId, "--db", store, "-q", ...more]);

async function query(sql: string): Promise<unknown[]> {
  const opened = await openStore({ dataDir: store, create: false });
  try {
    return await queryRows(opened, sql);
  } finally {
    await opened.close();
  }
}
const storedOf = async (runId: string) => ({
  samples: await query(
    `SELECT sample_id, task_id, candidate_index, label, line, metadata FROM samples WHERE run_id = '${runId}' ORDER BY sample_id`,
  ),
  scores: await query(
    `SELECT sample_id, scorer, criterion, repetition, rule, status, value, reason, detail FROM scores WHERE run_id = '${runId}' ORDER BY sample_id, scorer`,
  ),
});
const runIds = async () =>
  (await query("SELECT id FROM runs ORDER BY id")).map((row) => (row as { id: string }).id);

describe("assay run with a spec's fields", () => {
  const assaySpec = write("assay.yaml", RULES);
  const teamSpec = write("team.yaml", `${RULES}${FIELDS}`);
  const teamData = write(
    "team.jsonl",
    jsonl([
      ...teamLines,
      { row_id: "q5", prompt: "?", completion: { text: "x" }, subject: "geo", info: { level: 1 } },
    ]),
  );

  it("stores what the same dataset in Assay's names stores; a line missing a column is an input error", async () => {
    const plain = await run(write("assay.jsonl", jsonl(assayLines)), assaySpec, "plain");
    expect(plain.code, plain.stderr).toBe(ExitCode.ok);
    const mapped = await run(teamData, teamSpec, "mapped");
    expect(mapped.code, mapped.stderr).toBe(ExitCode.inputErrors);

    const expected = await storedOf("plain");
    expect(expected.samples).toHaveLength(5);
    expect(expected.scores.length).toBeGreaterThan(5);
    expect(await storedOf("mapped")).toEqual(expected);
    expect(
      await query("SELECT line, field, message FROM input_errors WHERE run_id = 'mapped'"),
    ).toEqual([
      { line: 5, field: "target", message: 'missing (mapped from column `["gold.v2"]`)' },
    ]);
  });

  it("refuses fields the dataset's first record lacks once, before any run is registered", async () => {
    const before = await runIds();
    const assayNamed = write("named.jsonl", jsonl(assayLines));
    for (const strict of [[], ["--strict"]]) {
      const refused = await run(assayNamed, teamSpec, "refused", ...strict);
      expect(refused.code, refused.stderr).toBe(ExitCode.refused);
      expect(refused.stderr.trim()).toBe(
        `assay: ${teamSpec}: fields.id = row_id: no such field in the dataset's first record (${assayNamed} line 1); its fields are id, question, answer, target, metadata`,
      );
    }
    const noQuestion = write("no-question.yaml", `${RULES}fields:\n  id: row_id\n`);
    const unmapped = await run(teamData, noQuestion, "refused");
    expect(unmapped.code, unmapped.stderr).toBe(ExitCode.refused);
    expect(unmapped.stderr).toMatch(
      /fields\.question: not mapped, and the dataset's first record \(.*team\.jsonl line 1\) has no `question` field either; map it; its fields are row_id, prompt, completion/,
    );
    expect(await runIds()).toEqual(before);
  });

  it("refuses to resume a run under a changed mapping unless allowed", async () => {
    const changed = write(
      "changed.yaml",
      `${RULES}${FIELDS.replace("[subject, info.level]", "[subject]")}`,
    );
    const refused = await run(teamData, changed, "mapped");
    expect(refused.code, refused.stderr).toBe(ExitCode.refused);
    expect(refused.stderr).toMatch(/spec changed \(fields fields\).*--allow-changed-spec/);
    const before = await storedOf("mapped");
    expect(await storedOf("mapped")).toEqual(before);

    const allowed = await run(teamData, changed, "mapped", "--allow-changed-spec");
    expect(allowed.code, allowed.stderr).toBe(ExitCode.inputErrors);
    expect(allowed.stderr).toMatch(/Resuming with a changed spec/);
  });
});
