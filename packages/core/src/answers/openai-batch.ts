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

// Only the fields the join reads are checked; the rest of a line (ids, timestamps, logprobs,
// system fingerprints) may be anything, since providers add fields over time.
const tokens = z.int().nonnegative().max(MAX_TOKEN_COUNT);
const cachedDetails = z.looseObject({ cached_tokens: tokens.nullish() }).nullish();

// `content` is null when the model refused (`refusal` holds its words) or only called
// tools (`tool_calls`); such a choice is kept, unscored with that reason.
const ChatChoice = z.looseObject({
  index: z.int().nonnegative().optional(),
  finish_reason: z.string().nullish(),
  message: z.looseObject({
    content: z.string({ error: "expected the answer text" }).nullable(),
    refusal: z.string().nullish(),
    tool_calls: z.array(z.looseObject({ function: z.looseObject({}).optional() })).nullish(),
  }),
});

const ChatCompletion = z.looseObject({
  model: z.string().min(1),
  choices: z.array(ChatChoice).min(1, { error: "the response has no choices" }),
  usage: z.looseObject({
    prompt_tokens: tokens,
    completion_tokens: tokens,
    prompt_tokens_details: cachedDetails,
  }),
});

const ResponsesOutput = z.looseObject({
  model: z.string().min(1),
  status: z.string().nullish(),
  incomplete_details: z.looseObject({ reason: z.string().nullish() }).nullish(),
  output: z.array(
    z.looseObject({
      type: z.string(),
      name: z.string().optional(),
      content: z
        .array(
          z.looseObject({
            type: z.string(),
            text: z.string().optional(),
            refusal: z.string().optional(),
          }),
        )
        .optional(),
    }),
  ),
  usage: z.looseObject({
    input_tokens: tokens,
    output_tokens: tokens,
    input_tokens_details: cachedDetails,
  }),
});

const ErrorDetail = z
  .looseObject({ message: z.string().optional(), code: z.unknown().optional() })
  .nullish();

const OpenAIBatchLine = z.looseObject({
  custom_id: z.string().min(1),
  response: z.looseObject({ status_code: z.int(), body: z.unknown().optional() }).nullish(),
  error: ErrorDetail,
});

/**
 * One line of an OpenAI Batch API output file (vLLM's batch runner writes the same shape):
 * a chat completion (its choices become candidates) or a Responses API object (its output
 * text is one answer). OpenAI counts cached prompt tokens inside `prompt_tokens`, so the
 * uncached count is the difference.
 */
export function openaiAnswer(json: unknown): BatchAnswer | AnswerLineProblem {
  const foreign = missingTopLevelKey(
    json,
    { format: "openai-batch", keys: ["response", "error"] },
    { format: "anthropic-batch", key: "result", source: "Anthropic Message Batches result" },
  );
  if (foreign !== undefined) return foreign;
  const line = OpenAIBatchLine.safeParse(json);
  if (!line.success) return refusedByIssue(line.error, json);
  const { custom_id: customId, response, error } = line.data;
  if (error != null || response == null || response.status_code !== 200) {
    return { kind: "failed", customId, outcome: "errored", reason: failureReason(line.data) };
  }
  const body = response.body as { object?: unknown } | null;
  if (typeof body === "object" && body !== null && "output" in body) {
    return responsesAnswer(customId, body);
  }
  const chat = ChatCompletion.safeParse(body);
  if (!chat.success) return prefixed(refusedByIssue(chat.error, body), "response.body");
  const { usage } = chat.data;
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  if (cached > usage.prompt_tokens) {
    return refused(
      "response.body.usage.prompt_tokens_details.cached_tokens",
      `cached tokens (${cached}) exceed prompt_tokens (${usage.prompt_tokens}), which count them`,
    );
  }
  const ordered = [...chat.data.choices]
    .map((choice, position) => ({ at: choice.index ?? position, choice }))
    .sort((a, b) => a.at - b.at);
  const choices: AnswerChoice[] = [];
  for (const { at, choice } of ordered) {
    const read = chatChoice(choice);
    if (read === undefined) {
      return refused(
        `response.body.choices[${at}].message.content`,
        "expected the answer text, a `refusal` or `tool_calls`; got null content with neither",
      );
    }
    choices.push(read);
  }
  return {
    kind: "answered",
    customId,
    model: chat.data.model,
    choices,
    inputTokens: usage.prompt_tokens - cached,
    cachedInputTokens: cached,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens: usage.completion_tokens,
  };
}

function responsesAnswer(customId: string, body: unknown): BatchAnswer | AnswerLineProblem {
  const parsed = ResponsesOutput.safeParse(body);
  if (!parsed.success) return prefixed(refusedByIssue(parsed.error, body), "response.body");
  const { usage } = parsed.data;
  const cached = usage.input_tokens_details?.cached_tokens ?? 0;
  if (cached > usage.input_tokens) {
    return refused(
      "response.body.usage.input_tokens_details.cached_tokens",
      `cached tokens (${cached}) exceed input_tokens (${usage.input_tokens}), which count them`,
    );
  }
  return {
    kind: "answered",
    customId,
    model: parsed.data.model,
    choices: [responsesChoice(parsed.data)],
    inputTokens: usage.input_tokens - cached,
    cachedInputTokens: cached,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens: usage.output_tokens,
  };
}

/** A chat choice's text, or why it has none; undefined when null content says nothing. */
function chatChoice(choice: z.infer<typeof ChatChoice>): AnswerChoice | undefined {
  const { content, refusal, tool_calls: calls } = choice.message;
  if (content !== null) return content;
  if (typeof refusal === "string") return { reason: "refusal", message: refusal };
  if (calls != null && calls.length > 0) {
    return { reason: "tool_call", message: toolCallMessage(calls.map(functionName)) };
  }
  if (choice.finish_reason === "length" || choice.finish_reason === "content_filter") {
    return { reason: "incomplete", message: `finish_reason: ${choice.finish_reason}` };
  }
  return undefined;
}

/**
 * A Responses API output's text, or why it has none: a reply the provider marked
 * incomplete (even with some text: it was cut off), a refusal, or only function calls.
 */
function responsesChoice(output: z.infer<typeof ResponsesOutput>): AnswerChoice {
  if (output.status === "incomplete") {
    const reason = output.incomplete_details?.reason ?? "no reason given";
    return { reason: "incomplete", message: `status incomplete: ${reason}` };
  }
  const parts = output.output
    .filter((item) => item.type === "message")
    .flatMap((item) => item.content ?? []);
  const texts = parts.filter((part) => part.type === "output_text" && part.text !== undefined);
  if (texts.length > 0) return texts.map((part) => part.text as string).join("");
  const refusal = parts.find((part) => part.type === "refusal" && part.refusal !== undefined);
  if (refusal !== undefined) return { reason: "refusal", message: refusal.refusal as string };
  const calls = output.output.filter((item) => item.type === "function_call");
  if (calls.length > 0) {
    return { reason: "tool_call", message: toolCallMessage(calls.map((item) => item.name)) };
  }
  return "";
}

function functionName(call: { function?: Record<string, unknown> }): string | undefined {
  const name = call.function?.name;
  return typeof name === "string" ? name : undefined;
}

function failureReason(line: z.infer<typeof OpenAIBatchLine>): string {
  if (line.error?.message !== undefined) return line.error.message;
  if (line.response == null) return "the request has no response";
  const body = line.response.body as { error?: { message?: unknown } } | null;
  const message = body?.error?.message;
  return typeof message === "string"
    ? `HTTP ${line.response.status_code}: ${message}`
    : `HTTP ${line.response.status_code}`;
}

function prefixed(problem: AnswerLineProblem, path: string): AnswerLineProblem {
  return { ...problem, field: problem.field === "" ? path : `${path}.${problem.field}` };
}
