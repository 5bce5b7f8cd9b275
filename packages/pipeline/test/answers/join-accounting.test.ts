import { type AnswerFormat, RunSpecSchema } from "@assay/core";
import { defaultRegistry } from "@assay/scorers";
import type { Store } from "@assay/store";
import { queryRows } from "@assay/test-support/stores";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runLocal } from "../../src/index.js";
import { pgliteTarget } from "../store-targets.js";
import { jsonl, tempFiles } from "../temp-files.js";

// Whatever the reference rows and answer lines (any order, missing on either side,
// custom ids given twice, failed requests), every reference row is scored or counted
// missing, and every answer line is joined or counted: nothing is lost or counted twice.

const files = tempFiles("assay-join-accounting-");
const registry = defaultRegistry();
const spec = RunSpecSchema.parse({ default: { scorers: [{ name: "exact" }] } });
const target = pgliteTarget();
let store: Store;
let runs = 0;

beforeAll(async () => {
  store = await target.open();
});
afterAll(() => target.cleanup());

type Outcome = "answered" | "errored" | "expired";
interface AnswerLine {
  id: string;
  outcome: Outcome;
}

function answerLine(format: AnswerFormat, { id, outcome }: AnswerLine): unknown {
  if (format === "openai-batch") {
    if (outcome !== "answered")
      return { custom_id: id, response: null, error: { message: outcome } };
    const body = {
      model: "m",
      choices: [{ index: 0, message: { content: `answer ${id}` } }],
      usage: { prompt_tokens: 3, completion_tokens: 2 },
    };
    return { custom_id: id, response: { status_code: 200, body }, error: null };
  }
  if (outcome !== "answered") return { custom_id: id, result: { type: outcome } };
  const message = {
    model: "m",
    content: [{ type: "text", text: `answer ${id}` }],
    usage: { input_tokens: 3, output_tokens: 2 },
  };
  return { custom_id: id, result: { type: "succeeded", message } };
}

const ids = fc.integer({ min: 0, max: 12 }).map((n) => `r${n}`);
const cases = fc.record({
  references: fc.uniqueArray(ids, { maxLength: 10 }).filter((rows) => rows.length > 0),
  answers: fc.array(
    fc.record({ id: ids, outcome: fc.constantFrom<Outcome>("answered", "errored", "expired") }),
    {
      minLength: 1,
      maxLength: 14,
    },
  ),
  format: fc.constantFrom<AnswerFormat>("openai-batch", "anthropic-batch"),
});

describe("joining answers to a reference", () => {
  it("scores or counts every reference row and joins or counts every answer line", async () => {
    await fc.assert(
      fc.asyncProperty(cases, async ({ references, answers, format }) => {
        runs += 1;
        const runId = `join-${runs}`;
        const dataset = files.write(
          `${runId}-reference.jsonl`,
          jsonl(references.map((id) => ({ id, question: `q ${id}`, target: `answer ${id}` }))),
        );
        const answersFile = files.write(
          `${runId}-answers.jsonl`,
          jsonl(answers.map((line) => answerLine(format, line))),
        );
        await store.startRun({ id: runId, dataset, spec, transport: "local" });
        const outcome = await runLocal({
          store,
          registry,
          dataset,
          spec,
          runId,
          newRun: true,
          answers: { files: [answersFile], format },
        });

        // What each side should come to: the first line of a custom id is the one used.
        const first = new Map<string, number>();
        answers.forEach((line, index) => {
          if (!first.has(line.id)) first.set(line.id, index);
        });
        const usable = (id: string) => {
          const at = first.get(id);
          return at !== undefined && answers[at]?.outcome === "answered";
        };
        const joined = references.filter(usable);
        const expected = {
          joined: joined.length,
          missingAnswers: references.length - joined.length,
          unmatchedAnswers: [...first.keys()].filter((id) => usable(id) && !references.includes(id))
            .length,
          failedRequests: [...first.values()].filter((at) => answers[at]?.outcome !== "answered")
            .length,
          duplicateAnswers: answers.length - first.size,
        };
        expect(outcome.produced.answers).toEqual(expected);
        expect(outcome.summary.answers).toEqual(expected);

        const scored = (await queryRows(
          store,
          `SELECT DISTINCT sample_id FROM scores WHERE run_id = '${runId}' ORDER BY 1`,
        )) as { sample_id: string }[];
        const errors = (await queryRows(
          store,
          `SELECT file, line FROM input_errors WHERE run_id = '${runId}'`,
        )) as { file: string; line: number }[];
        const missingLines = errors.filter((e) => e.file === dataset).map((e) => e.line);
        const countedAnswerLines = errors.filter((e) => e.file === answersFile).map((e) => e.line);

        // Each reference row: scored, or an input error on its line; never both.
        expect(scored.map((row) => row.sample_id)).toEqual([...joined].sort());
        references.forEach((id, index) => {
          expect(missingLines.includes(index + 1)).toBe(!usable(id));
        });
        // Each answer line: the one joined to a row, or an input error on its line.
        answers.forEach((line, index) => {
          const joinedHere =
            first.get(line.id) === index && usable(line.id) && references.includes(line.id);
          expect(countedAnswerLines.includes(index + 1)).toBe(!joinedHere);
        });
        expect(expected.joined + expected.missingAnswers).toBe(references.length);
        expect(
          expected.joined +
            expected.unmatchedAnswers +
            expected.failedRequests +
            expected.duplicateAnswers,
        ).toBe(answers.length);
      }),
      { numRuns: 25 },
    );
  }, 600_000);
});
