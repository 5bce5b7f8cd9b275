import { type AnswerFormat, RunSpecSchema } from "@assay/core";
import { defaultRegistry } from "@assay/scorers";
import type { Store } from "@assay/store";
import { queryRows } from "@assay/test-support/stores";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgliteTarget } from "../store-targets.js";
import { jsonl, tempFiles } from "../temp-files.js";
import { runJoined } from "./run-joined.js";

// Whatever the reference rows and answer lines (any order, over several files, missing on
// either side, custom ids given twice, failed requests and their retries), every reference
// row is scored or counted missing, every answer line is joined or counted, a request with
// a success is joined once whatever the order of its lines, and every billed token is
// either in a joined sample's usage or billed-but-not-joined: nothing lost, nothing twice.

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
  /** Which answers file holds the line (files are read in order). */
  file: number;
}

/** An answered line's input tokens: its position, so each line's tokens are told apart. */
const inputTokensOf = (at: number) => 3 + at;
const OUTPUT_TOKENS = 2;

function answerLine(format: AnswerFormat, { id, outcome }: AnswerLine, at: number): unknown {
  const input = inputTokensOf(at);
  if (format === "openai-batch") {
    if (outcome !== "answered")
      return { custom_id: id, response: null, error: { message: outcome } };
    const body = {
      model: "m",
      choices: [{ index: 0, message: { content: `answer ${id}` } }],
      usage: { prompt_tokens: input, completion_tokens: OUTPUT_TOKENS },
    };
    return { custom_id: id, response: { status_code: 200, body }, error: null };
  }
  if (outcome !== "answered") return { custom_id: id, result: { type: outcome } };
  const message = {
    model: "m",
    content: [{ type: "text", text: `answer ${id}` }],
    usage: { input_tokens: input, output_tokens: OUTPUT_TOKENS },
  };
  return { custom_id: id, result: { type: "succeeded", message } };
}

const ids = fc.integer({ min: 0, max: 12 }).map((n) => `r${n}`);
const cases = fc.record({
  references: fc.uniqueArray(ids, { maxLength: 10 }).filter((rows) => rows.length > 0),
  answers: fc.array(
    fc.record({
      id: ids,
      outcome: fc.constantFrom<Outcome>("answered", "errored", "expired"),
      file: fc.integer({ min: 0, max: 2 }),
    }),
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
        // Files in order, each line where its file puts it: the order the join reads them.
        const read = [0, 1, 2].flatMap((file) => answers.filter((line) => line.file === file));
        const answerFiles = [0, 1, 2]
          .map((file) => ({ file, lines: read.filter((line) => line.file === file) }))
          .filter(({ lines }) => lines.length > 0)
          .map(({ file, lines }) =>
            files.write(
              `${runId}-answers-${file}.jsonl`,
              jsonl(lines.map((line) => answerLine(format, line, read.indexOf(line)))),
            ),
          );
        const outcome = await runJoined(store, registry, {
          runId,
          dataset,
          spec,
          files: answerFiles,
          format,
        });

        // What each side should come to: a request's first success is its answer, whatever
        // failed before or after it; with none, its first failure is the failed request.
        const chosen = new Map<string, number>();
        read.forEach((line, at) => {
          const before = chosen.get(line.id);
          const upgrade = before !== undefined && read[before]?.outcome !== "answered";
          if (before === undefined || (upgrade && line.outcome === "answered")) {
            chosen.set(line.id, at);
          }
        });
        const usable = (id: string) => {
          const at = chosen.get(id);
          return at !== undefined && read[at]?.outcome === "answered";
        };
        const answered = read.filter((line) => line.outcome === "answered");
        const joined = references.filter(usable);
        const unmatched = [...chosen.keys()].filter((id) => usable(id) && !references.includes(id));
        const duplicates = answered.filter((line) => read.indexOf(line) !== chosen.get(line.id));
        const failed = [...chosen.values()].filter((at) => read[at]?.outcome !== "answered");
        const expected = {
          joined: joined.length,
          missingAnswers: references.length - joined.length,
          unmatchedAnswers: unmatched.length,
          failedRequests: failed.length,
          duplicateAnswers: duplicates.length,
          retriedFailures: read.length - chosen.size - duplicates.length,
        };
        expect(outcome.produced.answers).toMatchObject(expected);
        expect(outcome.summary.answers).toMatchObject(expected);

        // Billed tokens: every answered line's, in a joined sample's usage or billed but
        // not joined (unmatched and duplicate lines), each counted once.
        const unjoinedLines = [
          ...duplicates,
          ...unmatched.map((id) => read[chosen.get(id) as number] as AnswerLine),
        ];
        const billedInput = (lines: AnswerLine[]) =>
          lines.reduce((sum, line) => sum + inputTokensOf(read.indexOf(line)), 0);
        const unjoined = outcome.summary.answers?.unjoined ?? [];
        expect(unjoined.reduce((sum, usage) => sum + usage.lines, 0)).toBe(unjoinedLines.length);
        expect(unjoined.reduce((sum, usage) => sum + usage.inputTokens, 0)).toBe(
          billedInput(unjoinedLines),
        );
        const [usage] = (await queryRows(
          store,
          `SELECT coalesce(sum(input_tokens), 0)::int AS input,
                  coalesce(sum(output_tokens), 0)::int AS output
           FROM usage WHERE run_id = '${runId}' AND role = 'generator'`,
        )) as { input: number; output: number }[];
        const input =
          Number(usage?.input) + unjoined.reduce((sum, used) => sum + used.inputTokens, 0);
        const output =
          Number(usage?.output) + unjoined.reduce((sum, used) => sum + used.outputTokens, 0);
        expect(input).toBe(billedInput(answered));
        expect(output).toBe(OUTPUT_TOKENS * answered.length);

        const scored = (await queryRows(
          store,
          `SELECT DISTINCT sample_id FROM scores WHERE run_id = '${runId}' ORDER BY 1`,
        )) as { sample_id: string }[];
        const errors = (await queryRows(
          store,
          `SELECT file, line FROM input_errors WHERE run_id = '${runId}'`,
        )) as { file: string; line: number }[];
        const missingLines = errors.filter((e) => e.file === dataset).map((e) => e.line);
        const erroredAnswers = new Set(
          errors.filter((e) => e.file !== dataset).map((e) => `${e.file}:${e.line}`),
        );

        // Each reference row: scored, or an input error on its line; never both.
        expect(scored.map((row) => row.sample_id)).toEqual([...joined].sort());
        references.forEach((id, index) => {
          expect(missingLines.includes(index + 1)).toBe(!usable(id));
        });
        // Each answer line: joined to a row, a retried failure, or an input error on its line.
        read.forEach((line, at) => {
          const chosenHere = chosen.get(line.id) === at;
          const joinedHere = chosenHere && usable(line.id) && references.includes(line.id);
          const retried = line.outcome !== "answered" && !chosenHere;
          const file = answerFiles.find((path) => path.endsWith(`-answers-${line.file}.jsonl`));
          const lineNumber = read.filter((other) => other.file === line.file).indexOf(line) + 1;
          expect(erroredAnswers.has(`${file}:${lineNumber}`)).toBe(!joinedHere && !retried);
        });
        expect(expected.joined + expected.missingAnswers).toBe(references.length);
        expect(
          expected.joined +
            expected.unmatchedAnswers +
            expected.failedRequests +
            expected.duplicateAnswers +
            expected.retriedFailures,
        ).toBe(answers.length);
      }),
      { numRuns: 25 },
    );
  }, 600_000);
});
