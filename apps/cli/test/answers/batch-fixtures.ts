// Batch outputs as OpenAI's Batch API and Anthropic's Message Batches write them, and the
// same answers written directly as Assay JSONL with their usage: a join must store what
// the direct dataset stores.

export const REFERENCE = [
  { id: "q1", question: "Capital of France?", target: "paris" },
  { id: "q2", question: "Capital of Italy?", target: "rome" },
  { id: "q3", question: "Capital of Spain?", target: "madrid" },
  { id: "q4", question: "Capital of Peru?", target: "lima" },
  { id: "q5", question: "Capital of Chad?", target: "n'djamena", metadata: { kind: "geo" } },
];

export const SPEC = "default:\n  scorers: [{ name: exact }, { name: includes }]\n";

export const PRICES =
  "currency: USD\nmodels:\n" +
  "  gpt-x: { input_per_million: 2, cached_input_per_million: 0.5, output_per_million: 8 }\n" +
  "  claude-x: { input_per_million: 3, cached_input_per_million: 0.3, cache_write_per_million: 3.75, output_per_million: 15 }\n";

function chat(
  customId: string,
  choices: string[],
  prompt: number,
  completion: number,
  cached?: number,
) {
  return {
    id: `batch_req_${customId}`,
    custom_id: customId,
    response: {
      status_code: 200,
      request_id: `req_${customId}`,
      body: {
        id: `chatcmpl-${customId}`,
        object: "chat.completion",
        created: 1_700_000_000,
        model: "gpt-x",
        choices: choices.map((content, index) => ({
          index,
          message: { role: "assistant", content, refusal: null },
          logprobs: null,
          finish_reason: "stop",
        })),
        usage: {
          prompt_tokens: prompt,
          completion_tokens: completion,
          total_tokens: prompt + completion,
          ...(cached !== undefined && { prompt_tokens_details: { cached_tokens: cached } }),
        },
        system_fingerprint: "fp_1",
      },
    },
    error: null,
  };
}

/** Lines in file order: q1 (cached tokens), q2 (n=2), q3 errored, q1 again, q9 (no row), q5. */
export const OPENAI_OUTPUT = [
  chat("q1", ["Paris"], 100, 10, 40),
  chat("q2", ["milan", "rome"], 50, 20),
  {
    id: "batch_req_q3",
    custom_id: "q3",
    response: null,
    error: { code: "server_error", message: "The server had an error" },
  },
  chat("q1", ["lyon"], 7, 7),
  chat("q9", ["oslo"], 10, 1),
  chat("q5", ["N'Djamena"], 30, 3, 0),
];

/** The same answers as Assay JSONL: OpenAI's prompt_tokens include the cached ones. */
export const OPENAI_AS_JSONL = {
  spec: `${SPEC}generator_usage: { input_tokens: includes_cached }\n`,
  lines: [
    {
      ...REFERENCE[0],
      answer: "Paris",
      generator: { model: "gpt-x", input_tokens: 100, cached_input_tokens: 40, output_tokens: 10 },
    },
    {
      ...REFERENCE[1],
      candidates: [
        { answer: "milan", generator: { model: "gpt-x", input_tokens: 50, output_tokens: 20 } },
        { answer: "rome", generator: { model: "gpt-x", input_tokens: 0, output_tokens: 0 } },
      ],
    },
    {
      ...REFERENCE[4],
      answer: "N'Djamena",
      generator: { model: "gpt-x", input_tokens: 30, output_tokens: 3 },
    },
  ],
};

function message(customId: string, text: string, usage: Record<string, number>) {
  return {
    custom_id: customId,
    result: {
      type: "succeeded",
      message: {
        id: `msg_${customId}`,
        type: "message",
        role: "assistant",
        model: "claude-x",
        content: [{ type: "text", text }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage,
      },
    },
  };
}

/** q1 (cache read and write), q2 expired, q3 errored, q9 (no row), q5, q5 again; q4 absent. */
export const ANTHROPIC_OUTPUT = [
  message("q1", "paris", {
    input_tokens: 50,
    cache_creation_input_tokens: 20,
    cache_read_input_tokens: 30,
    output_tokens: 5,
  }),
  { custom_id: "q2", result: { type: "expired" } },
  {
    custom_id: "q3",
    result: {
      type: "errored",
      error: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
    },
  },
  message("q9", "oslo", { input_tokens: 1, output_tokens: 1 }),
  message("q5", "n'djamena", { input_tokens: 12, output_tokens: 4 }),
  message("q5", "other", { input_tokens: 99, output_tokens: 99 }),
];

/**
 * The same answers as Assay JSONL: Anthropic counts cache reads and writes outside
 * input_tokens, as the JSONL's cached_input_tokens and cache_write_tokens are.
 */
export const ANTHROPIC_AS_JSONL = {
  spec: `${SPEC}generator_usage: { input_tokens: excludes_cached }\n`,
  lines: [
    {
      ...REFERENCE[0],
      answer: "paris",
      generator: {
        model: "claude-x",
        input_tokens: 50,
        cached_input_tokens: 30,
        cache_write_tokens: 20,
        output_tokens: 5,
      },
    },
    {
      ...REFERENCE[4],
      answer: "n'djamena",
      generator: { model: "claude-x", input_tokens: 12, output_tokens: 4 },
    },
  ],
};

export function jsonl(rows: readonly unknown[]): string {
  return `${rows.map((row) => JSON.stringify(row)).join("\n")}\n`;
}
