import { RunSpecSchema, SpecError } from "@assay/core";
import { defaultRegistry } from "@assay/scorers";
import type { Store } from "@assay/store";
import { queryRows } from "@assay/test-support/stores";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertFieldsInFirstRecord, openDataset, parseSpec } from "../../src/index.js";
import { compileFields } from "../../src/ingest/field-map.js";
import { pgliteTarget } from "../store-targets.js";
import { jsonl, tempFiles } from "../temp-files.js";
import { runJoined } from "./run-joined.js";

// A reference whose gold column is called `answer` (the Hugging Face convention): the
// gold is never read as the model's answer. Without joined answers the spec is refused,
// naming both fields; with `--answers` the column is the target and the join gives the answer.

const files = tempFiles("assay-gold-column-");
const registry = defaultRegistry();
const target = pgliteTarget();
let store: Store;

beforeAll(async () => {
  store = await target.open();
});
afterAll(() => target.cleanup());

const HF_ROWS = [
  { id: "q1", question: "2+2?", answer: "4" },
  { id: "q2", question: "3+3?", answer: "6" },
];

function openaiLine(id: string, content: string): unknown {
  const body = {
    model: "m",
    choices: [{ index: 0, message: { content } }],
    usage: { prompt_tokens: 3, completion_tokens: 1 },
  };
  return { custom_id: id, response: { status_code: 200, body }, error: null };
}

const specYaml = (fields: string) => `default:\n  scorers: [{ name: exact }]\nfields:\n${fields}`;

describe("a gold column called `answer`", () => {
  it("is refused as both answer and target, naming both, when nothing else gives the answer", async () => {
    const refused = compileFields({ target: "answer" }, { answersJoined: false });
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.field).toBe("fields.target");
    expect(refused.message).toContain("`answer`");
    expect(refused.message).toContain("fields.target and fields.answer");
    expect(refused.message).toContain("--answers");

    // Named twice explicitly: refused when the spec loads, before any run.
    expect(() =>
      parseSpec(specYaml("  answer: answer\n  target: answer"), "s.yaml", registry),
    ).toThrow(/both fields\.target and fields\.answer/);

    // A run without --answers is refused before it is registered.
    const spec = parseSpec(specYaml("  target: answer"), "s.yaml", registry);
    const dataset = await openDataset(files.write("hf.jsonl", jsonl(HF_ROWS)));
    try {
      await expect(
        assertFieldsInFirstRecord(dataset, spec.fields, "s.yaml", 1 << 20),
      ).rejects.toThrow(SpecError);
    } finally {
      await dataset.close();
    }
  });

  it("is the target with --answers: the joined answers are scored against it", async () => {
    const spec = RunSpecSchema.parse({
      default: { scorers: [{ name: "exact" }] },
      fields: { target: "answer" },
    });
    const dataset = files.write("reference.jsonl", jsonl(HF_ROWS));
    const answers = files.write(
      "answers.jsonl",
      jsonl([openaiLine("q1", "4"), openaiLine("q2", "7")]),
    );
    const runId = "gold-joined";
    const outcome = await runJoined(store, registry, { runId, dataset, spec, files: [answers] });
    expect(outcome.produced.answers?.joined).toBe(2);
    const rows = (await queryRows(
      store,
      `SELECT sample_id, value FROM scores WHERE run_id = '${runId}' ORDER BY sample_id`,
    )) as { sample_id: string; value: number }[];
    // The right answer passes and the wrong one fails: the gold was not compared with itself.
    expect(rows.map((row) => [row.sample_id, Number(row.value)])).toEqual([
      ["q1", 1],
      ["q2", 0],
    ]);
  });
});

describe("answers whose custom ids match no row", () => {
  it("say that --answers-id-prefix may be missing", async () => {
    const spec = RunSpecSchema.parse({ default: { scorers: [{ name: "exact" }] } });
    const rows = [{ id: "1", question: "2+2?", target: "4" }];
    const dataset = files.write("numbered.jsonl", jsonl(rows));
    const answers = files.write("prefixed.jsonl", jsonl([openaiLine("request-1", "4")]));
    const runId = "prefix-forgotten";
    const outcome = await runJoined(store, registry, { runId, dataset, spec, files: [answers] });
    expect(outcome.produced.answers?.joined).toBe(0);
    const errors = (await queryRows(
      store,
      `SELECT message FROM input_errors WHERE run_id = '${runId}' AND field = 'custom_id'`,
    )) as { message: string }[];
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toContain("pass that prefix with --answers-id-prefix");
  });
});
