import { type AnswerFormat, PriceTableSchema, RunSpecSchema } from "@assay/core";
import { defaultRegistry } from "@assay/scorers";
import type { Store } from "@assay/store";
import { queryRows } from "@assay/test-support/stores";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runReportBundle } from "../../src/index.js";
import { pgliteTarget } from "../store-targets.js";
import { jsonl, tempFiles } from "../temp-files.js";
import { runJoined } from "./run-joined.js";

// The join "as billed": a retry in a later file answers a request that failed before; a
// reply with no text (a refusal, only tool calls, cut off) is stored unscored with why,
// never scored as an empty answer, and its tokens are billed; the tokens of lines that
// joined no row (unmatched, duplicate) are counted and stored with the run.

const files = tempFiles("assay-join-as-billed-");
const registry = defaultRegistry();
const spec = RunSpecSchema.parse({ default: { scorers: [{ name: "exact" }] } });
const target = pgliteTarget();
let store: Store;
let runs = 0;

beforeAll(async () => {
  store = await target.open();
});
afterAll(() => target.cleanup());

const REFERENCE = [
  { id: "q1", question: "Capital of France?", target: "Paris" },
  { id: "q2", question: "Capital of Italy?", target: "Rome" },
];

function chatLine(id: string, messages: object[], prompt: number, completion: number): unknown {
  const choices = messages.map((message, index) => ({ index, message, finish_reason: "stop" }));
  const usage = { prompt_tokens: prompt, completion_tokens: completion };
  return {
    custom_id: id,
    response: { status_code: 200, body: { model: "gpt-x", choices, usage } },
    error: null,
  };
}
const text = (content: string) => ({ role: "assistant", content, refusal: null });
const failedLine = (id: string) => ({
  custom_id: id,
  response: { status_code: 500, body: { error: { message: "server overloaded" } } },
  error: null,
});

function responsesLine(id: string, body: object): unknown {
  const usage = { input_tokens: 9, output_tokens: 4 };
  return {
    custom_id: id,
    response: { status_code: 200, body: { model: "gpt-x", usage, ...body } },
    error: null,
  };
}

async function join(answerFiles: unknown[][], format: AnswerFormat = "openai-batch") {
  runs += 1;
  const runId = `billed-${runs}`;
  const dataset = files.write(`${runId}-reference.jsonl`, jsonl(REFERENCE));
  const paths = answerFiles.map((lines, index) =>
    files.write(`${runId}-answers-${index}.jsonl`, jsonl(lines)),
  );
  const outcome = await runJoined(store, registry, { runId, dataset, spec, files: paths, format });
  const rows = async (sql: string) =>
    (await queryRows(store, sql.replaceAll("$run", `'${runId}'`))) as Record<string, unknown>[];
  return {
    counts: outcome.summary.answers,
    paths,
    scores: await rows(
      "SELECT sample_id, status, value, reason, detail->>'message' AS message FROM scores WHERE run_id = $run ORDER BY sample_id",
    ),
    usage: await rows(
      "SELECT sample_id, input_tokens, output_tokens FROM usage WHERE run_id = $run AND role = 'generator' ORDER BY sample_id",
    ),
    errors: await rows(
      "SELECT file, line, field, message FROM input_errors WHERE run_id = $run ORDER BY file, line",
    ),
    stored: await store.answerJoinCounts(runId),
  };
}

describe("answers joined as billed", () => {
  it("takes a retry in a later file over the earlier failure, in either order", async () => {
    const retried = await join([
      [failedLine("q1"), chatLine("q2", [text("Rome")], 5, 1)],
      [chatLine("q1", [text("Paris")], 6, 1)],
    ]);
    expect(retried.scores.map((s) => [s.sample_id, s.value])).toEqual([
      ["q1", 1],
      ["q2", 1],
    ]);
    expect(retried.counts).toMatchObject({
      joined: 2,
      missingAnswers: 0,
      failedRequests: 0,
      duplicateAnswers: 0,
      retriedFailures: 1,
      unjoined: [],
    });
    // No input error at all: neither a failure nor a duplicate for the retried pair.
    expect(retried.errors).toEqual([]);

    // A failure after the success (say, the retry file given first): the success is kept.
    const late = await join([
      [chatLine("q1", [text("Paris")], 6, 1), chatLine("q2", [text("Rome")], 5, 1)],
      [failedLine("q1")],
    ]);
    expect(late.counts).toMatchObject({ joined: 2, failedRequests: 0, retriedFailures: 1 });
    expect(late.errors).toEqual([]);

    // Two successes remain a duplicate: the first is the answer, the second an error.
    const twice = await join([
      [chatLine("q1", [text("Paris")], 6, 1), chatLine("q2", [text("Rome")], 5, 1)],
      [chatLine("q1", [text("Lyon")], 7, 2)],
    ]);
    expect(twice.scores.find((s) => s.sample_id === "q1")?.value).toBe(1);
    expect(twice.counts).toMatchObject({ duplicateAnswers: 1, retriedFailures: 0 });
    expect(twice.errors).toEqual([
      expect.objectContaining({
        file: twice.paths[1],
        line: 1,
        field: "custom_id",
        message: expect.stringContaining('duplicate custom_id "q1"'),
      }),
    ]);

    // Every attempt failed: the request is failed once, the later failure is no new error.
    const failing = await join([
      [failedLine("q1"), chatLine("q2", [text("Rome")], 5, 1)],
      [failedLine("q1")],
    ]);
    expect(failing.counts).toMatchObject({ failedRequests: 1, retriedFailures: 1, joined: 1 });
    expect(failing.errors.map((e) => [e.file, e.line])).toEqual([
      [failing.paths[0], 1],
      [expect.stringContaining("reference"), 1],
    ]);
  });

  it("keeps a refused or tool-calling choice unscored with why, scores its siblings, bills once", async () => {
    const refusal = { role: "assistant", content: null, refusal: "I can't help with that." };
    const toolCall = {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "lookup", arguments: "{}" } }],
    };
    const joined = await join([
      [chatLine("q1", [text("Paris"), refusal, toolCall], 40, 12), chatLine("q2", [refusal], 8, 3)],
    ]);
    expect(joined.scores).toEqual([
      { sample_id: "q1#0", status: "scored", value: 1, reason: null, message: null },
      {
        sample_id: "q1#1",
        status: "unscored",
        value: null,
        reason: "refusal",
        message: "I can't help with that.",
      },
      {
        sample_id: "q1#2",
        status: "unscored",
        value: null,
        reason: "tool_call",
        message: expect.stringContaining("lookup"),
      },
      {
        sample_id: "q2",
        status: "unscored",
        value: null,
        reason: "refusal",
        message: "I can't help with that.",
      },
    ]);
    // The request's tokens are billed once, on its first candidate, refused or not.
    const billed = joined.usage.filter((row) => Number(row.input_tokens) > 0);
    expect(billed).toEqual([
      { sample_id: "q1#0", input_tokens: 40, output_tokens: 12 },
      { sample_id: "q2", input_tokens: 8, output_tokens: 3 },
    ]);
    expect(joined.counts).toMatchObject({ joined: 2, missingAnswers: 0 });
    expect(joined.errors).toEqual([]);
  });

  it("never scores function calls only, an incomplete response or tool_use only as an empty answer", async () => {
    const responses = await join([
      [
        responsesLine("q1", {
          status: "completed",
          output: [{ type: "function_call", name: "search", arguments: "{}", call_id: "c" }],
        }),
        responsesLine("q2", {
          status: "incomplete",
          incomplete_details: { reason: "max_output_tokens" },
          output: [{ type: "message", content: [{ type: "output_text", text: "Ro" }] }],
        }),
      ],
    ]);
    expect(responses.scores.map((s) => [s.sample_id, s.reason, s.message])).toEqual([
      ["q1", "tool_call", expect.stringContaining("search")],
      ["q2", "incomplete", "status incomplete: max_output_tokens"],
    ]);
    expect(responses.usage.map((row) => Number(row.input_tokens))).toEqual([9, 9]);

    const message = (content: object[], stopReason: string) => ({
      model: "claude-x",
      content,
      stop_reason: stopReason,
      usage: { input_tokens: 11, output_tokens: 6 },
    });
    const anthropic = await join(
      [
        [
          {
            custom_id: "q1",
            result: {
              type: "succeeded",
              message: message(
                [{ type: "tool_use", id: "t", name: "get_capital", input: {} }],
                "tool_use",
              ),
            },
          },
          {
            custom_id: "q2",
            result: {
              type: "succeeded",
              message: message([{ type: "text", text: "Rome" }], "end_turn"),
            },
          },
        ],
      ],
      "anthropic-batch",
    );
    expect(anthropic.scores.map((s) => [s.sample_id, s.status, s.reason])).toEqual([
      ["q1", "unscored", "tool_call"],
      ["q2", "scored", null],
    ]);
    expect(anthropic.usage.map((row) => Number(row.output_tokens))).toEqual([6, 6]);
  });

  it("counts and stores the tokens of lines that joined no row, per model", async () => {
    const joined = await join([
      [
        chatLine("q1", [text("Paris")], 10, 2),
        chatLine("q9", [text("Oslo")], 100, 20),
        chatLine("q2", [text("Rome")], 5, 1),
      ],
      [chatLine("q1", [text("Lyon")], 1000, 200)],
    ]);
    const unjoined = [
      {
        model: "gpt-x",
        lines: 2,
        inputTokens: 1100,
        cachedInputTokens: 0,
        cacheWriteTokens: 0,
        outputTokens: 220,
      },
    ];
    expect(joined.counts).toMatchObject({ unmatchedAnswers: 1, duplicateAnswers: 1, unjoined });
    // Stored with the run, for `assay report`.
    expect(joined.stored).toMatchObject({ unjoined });
  });

  it("prices the 1-hour cache writes of lines that joined no row at their own rate", async () => {
    const anthropicLine = (id: string, fiveMinute: number, oneHour: number) => ({
      custom_id: id,
      result: {
        type: "succeeded",
        message: {
          model: "claude-x",
          content: [{ type: "text", text: "Oslo" }],
          stop_reason: "end_turn",
          usage: {
            input_tokens: 100,
            output_tokens: 10,
            cache_creation_input_tokens: fiveMinute + oneHour,
            cache_creation: {
              ephemeral_5m_input_tokens: fiveMinute,
              ephemeral_1h_input_tokens: oneHour,
            },
          },
        },
      },
    });
    const joined = await join(
      [[anthropicLine("q1", 0, 0), anthropicLine("q2", 0, 0), anthropicLine("q9", 2000, 3000)]],
      "anthropic-batch",
    );
    const unjoined = [
      {
        model: "claude-x",
        lines: 1,
        inputTokens: 100,
        cachedInputTokens: 0,
        cacheWriteTokens: 5000,
        cacheWrite1hTokens: 3000,
        outputTokens: 10,
      },
    ];
    expect(joined.counts?.unjoined).toEqual(unjoined);
    expect(joined.stored?.unjoined).toEqual(unjoined);

    // Per million: input 1, 5-minute writes 2, 1-hour writes 4, output 10. By hand:
    // 100·1 + 2000·2 + 3000·4 + 10·10 = 16,200 per million.
    const prices = PriceTableSchema.parse({
      models: {
        "claude-x": {
          input_per_million: 1,
          cache_write_per_million: 2,
          cache_write_1h_per_million: 4,
          output_per_million: 10,
        },
      },
    });
    const { bundle } = await runReportBundle(store, `billed-${runs}`, { prices });
    expect(bundle.answers?.unjoinedCost?.amount).toBeCloseTo(16_200 / 1_000_000, 12);
  });
});
