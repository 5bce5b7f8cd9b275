import { z } from "zod";
import { MAX_TOKEN_COUNT } from "../validation/limits.js";
import {
  type AnswerChoice,
  type AnswerLineProblem,
  type BatchAnswer,
  missingTopLevelKey,
  refused,
  refusedByIssue,
  toolCallMessage,
} from "./answer-shape.js";

const tokens = z.int().nonnegative().max(MAX_TOKEN_COUNT);

const Message = z.looseObject({
  model: z.string().min(1),
  stop_reason: z.string().nullish(),
  content: z.array(
    z.looseObject({ type: z.string(), text: z.string().optional(), name: z.string().optional() }),
  ),
  usage: z.looseObject({
    input_tokens: tokens,
    output_tokens: tokens,
    cache_read_input_tokens: tokens.nullish(),
    cache_creation_input_tokens: tokens.nullish(),
    /** The cache writes split by lifetime; their sum is `cache_creation_input_tokens`. */
    cache_creation: z
      .looseObject({
        ephemeral_5m_input_tokens: tokens.nullish(),
        ephemeral_1h_input_tokens: tokens.nullish(),
      })
      .nullish(),
  }),
});

const AnthropicBatchLine = z.looseObject({
  custom_id: z.string().min(1),
  result: z.looseObject({
    type: z.enum(["succeeded", "errored", "canceled", "expired"]),
    message: z.unknown().optional(),
    error: z.unknown().optional(),
  }),
});

/**
 * One line of an Anthropic Message Batches results file. Anthropic counts cache reads and
 * cache writes outside `input_tokens`: reads are the cached input, writes are kept apart
 * (priced at the table's cache-write price), and `input_tokens` is the uncached input.
 */
export function anthropicAnswer(json: unknown): BatchAnswer | AnswerLineProblem {
  const foreign = missingTopLevelKey(
    json,
    { format: "anthropic-batch", keys: ["result"] },
    { format: "openai-batch", key: "response", source: "OpenAI batch output" },
  );
  if (foreign !== undefined) return foreign;
  const line = AnthropicBatchLine.safeParse(json);
  if (!line.success) return refusedByIssue(line.error, json);
  const { custom_id: customId, result } = line.data;
  if (result.type !== "succeeded") {
    return { kind: "failed", customId, outcome: result.type, reason: failureReason(result) };
  }
  const message = Message.safeParse(result.message);
  if (!message.success) {
    const problem = refusedByIssue(message.error, result.message);
    const field = problem.field === "" ? "result.message" : `result.message.${problem.field}`;
    return refused(field, problem.message);
  }
  const { usage } = message.data;
  const writes = cacheWrites(usage);
  if ("field" in writes) return refused(writes.field, writes.message);
  return {
    kind: "answered",
    customId,
    model: message.data.model,
    choices: [messageChoice(message.data)],
    inputTokens: usage.input_tokens,
    cachedInputTokens: usage.cache_read_input_tokens ?? 0,
    cacheWriteTokens: writes.total,
    cacheWrite1hTokens: writes.oneHour,
    outputTokens: usage.output_tokens,
  };
}

/**
 * The message's text, or why it has none: a refusal (`stop_reason: "refusal"`), or only
 * `tool_use` blocks. Never an empty answer standing in for either.
 */
function messageChoice(message: z.infer<typeof Message>): AnswerChoice {
  const texts = message.content.filter(
    (block) => block.type === "text" && block.text !== undefined,
  );
  const text = texts.map((block) => block.text as string).join("");
  if (message.stop_reason === "refusal") {
    return { reason: "refusal", message: text === "" ? "stop_reason: refusal" : text };
  }
  if (texts.length > 0) return text;
  const calls = message.content.filter((block) => block.type === "tool_use");
  if (calls.length > 0) {
    return { reason: "tool_call", message: toolCallMessage(calls.map((block) => block.name)) };
  }
  return text;
}

/**
 * The cache writes of a message: the total, and the part of it written to the 1-hour cache
 * (priced at its own rate). Usage that gives only the total has no 1-hour part.
 */
function cacheWrites(
  usage: z.infer<typeof Message>["usage"],
): { total: number; oneHour: number } | { field: string; message: string } {
  const fiveMinute = usage.cache_creation?.ephemeral_5m_input_tokens ?? 0;
  const oneHour = usage.cache_creation?.ephemeral_1h_input_tokens ?? 0;
  const total = usage.cache_creation_input_tokens ?? fiveMinute + oneHour;
  if (oneHour > total) {
    return {
      field: "result.message.usage.cache_creation.ephemeral_1h_input_tokens",
      message: `${oneHour} 1-hour cache writes exceed cache_creation_input_tokens (${total}), which counts every cache write`,
    };
  }
  return { total, oneHour };
}

function failureReason(result: { type: string; error?: unknown }): string {
  const error = result.error as { type?: unknown; error?: { message?: unknown } } | undefined;
  const message = error?.error?.message;
  if (typeof message === "string") return message;
  if (typeof error?.type === "string") return error.type;
  return result.type === "errored" ? "the request errored" : `the request was ${result.type}`;
}
