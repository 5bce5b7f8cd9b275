import { describe, expect, it } from "vitest";
import { parseAnswerLine } from "../../src/index.js";

// A batch output line becomes an answer with usage in the store's convention (uncached
// input apart from cached), a failed request with the provider's reason, or a refusal
// naming the field.

const chat = (body: Record<string, unknown>, status = 200) =>
  JSON.stringify({
    id: "b1",
    custom_id: "q1",
    response: { status_code: status, body },
    error: null,
  });

describe("OpenAI batch output lines", () => {
  it("takes the choices in index order, and counts cached tokens out of prompt_tokens", () => {
    const line = chat({
      model: "gpt-x",
      choices: [
        { index: 1, message: { role: "assistant", content: "second" } },
        { index: 0, message: { role: "assistant", content: "first" } },
      ],
      usage: {
        prompt_tokens: 100,
        completion_tokens: 9,
        prompt_tokens_details: { cached_tokens: 64 },
      },
    });
    expect(parseAnswerLine(line, "openai-batch")).toEqual({
      kind: "answered",
      customId: "q1",
      model: "gpt-x",
      choices: ["first", "second"],
      inputTokens: 36,
      cachedInputTokens: 64,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      outputTokens: 9,
    });
  });

  it("reads a Responses API body's output text", () => {
    const line = chat({
      object: "response",
      model: "gpt-y",
      output: [
        { type: "reasoning", summary: [] },
        { type: "message", content: [{ type: "output_text", text: "Paris" }] },
      ],
      usage: { input_tokens: 20, output_tokens: 3, input_tokens_details: { cached_tokens: 0 } },
    });
    expect(parseAnswerLine(line, "openai-batch")).toMatchObject({
      kind: "answered",
      choices: ["Paris"],
      inputTokens: 20,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
    });
  });

  it("reports a failed request with its reason: an error, or a status other than 200", () => {
    const errored = JSON.stringify({
      custom_id: "q2",
      response: null,
      error: {
        code: "batch_expired",
        message: "This request could not be executed before the completion window expired.",
      },
    });
    expect(parseAnswerLine(errored, "openai-batch")).toEqual({
      kind: "failed",
      customId: "q2",
      outcome: "errored",
      reason: "This request could not be executed before the completion window expired.",
    });
    const refused = chat({ error: { message: "Invalid model" } }, 400);
    expect(parseAnswerLine(refused, "openai-batch")).toMatchObject({
      kind: "failed",
      reason: "HTTP 400: Invalid model",
    });
  });

  it("names the field of a line that is not batch output", () => {
    expect(parseAnswerLine('{"id": "x"}', "openai-batch")).toMatchObject({
      kind: "refused",
      field: "custom_id",
    });
    const noText = chat({
      model: "m",
      choices: [{ index: 0, message: { content: null, tool_calls: [] } }],
      usage: { prompt_tokens: 1, completion_tokens: 1 },
    });
    expect(parseAnswerLine(noText, "openai-batch")).toMatchObject({
      kind: "refused",
      field: "response.body.choices[0].message.content",
    });
  });
});

describe("Anthropic Message Batches result lines", () => {
  it("keeps cache writes apart from the uncached input and counts cache reads as cached input", () => {
    const line = JSON.stringify({
      custom_id: "q1",
      result: {
        type: "succeeded",
        message: {
          model: "claude-x",
          content: [
            { type: "thinking", thinking: "..." },
            { type: "text", text: "Par" },
            { type: "text", text: "is" },
          ],
          usage: {
            input_tokens: 50,
            cache_creation_input_tokens: 20,
            cache_read_input_tokens: 30,
            output_tokens: 5,
          },
        },
      },
    });
    expect(parseAnswerLine(line, "anthropic-batch")).toEqual({
      kind: "answered",
      customId: "q1",
      model: "claude-x",
      choices: ["Paris"],
      inputTokens: 50,
      cachedInputTokens: 30,
      cacheWriteTokens: 20,
      cacheWrite1hTokens: 0,
      outputTokens: 5,
    });
  });

  it("reports errored, canceled and expired requests with the reason given", () => {
    const errored = JSON.stringify({
      custom_id: "q2",
      result: {
        type: "errored",
        error: {
          type: "error",
          error: { type: "invalid_request_error", message: "max_tokens too large" },
        },
      },
    });
    expect(parseAnswerLine(errored, "anthropic-batch")).toEqual({
      kind: "failed",
      customId: "q2",
      outcome: "errored",
      reason: "max_tokens too large",
    });
    for (const type of ["canceled", "expired"] as const) {
      const line = JSON.stringify({ custom_id: "q3", result: { type } });
      expect(parseAnswerLine(line, "anthropic-batch")).toMatchObject({
        kind: "failed",
        outcome: type,
      });
    }
  });

  it("refuses a result type it does not know, naming the field", () => {
    const line = JSON.stringify({ custom_id: "q4", result: { type: "pending" } });
    expect(parseAnswerLine(line, "anthropic-batch")).toMatchObject({
      kind: "refused",
      field: "result.type",
    });
  });
});

describe("a batch output file read in the other format", () => {
  const anthropicLine = JSON.stringify({
    custom_id: "q1",
    result: { type: "succeeded", message: { model: "m", content: [], usage: {} } },
  });
  const openaiLine = JSON.stringify({ custom_id: "q1", response: null, error: null });

  it("refuses each line naming the format it looks like, instead of counting a failed request", () => {
    expect(parseAnswerLine(anthropicLine, "openai-batch")).toEqual({
      kind: "refused",
      field: "response",
      message:
        "an openai-batch line has `response` or `error`; this one has neither; it has `result`, as Anthropic Message Batches result lines do: read the file with --answers-format anthropic-batch",
    });
    expect(parseAnswerLine(openaiLine, "anthropic-batch")).toEqual({
      kind: "refused",
      field: "result",
      message:
        "an anthropic-batch line has `result`; this one has none; it has `response`, as OpenAI batch output lines do: read the file with --answers-format openai-batch",
    });
  });

  it("still reads an OpenAI line whose request failed without a response as failed", () => {
    expect(parseAnswerLine(openaiLine, "openai-batch")).toMatchObject({
      kind: "failed",
      outcome: "errored",
    });
  });
});

describe("a reply with no text to score", () => {
  const usage = { prompt_tokens: 5, completion_tokens: 2 };

  it("names what an OpenAI choice held instead of text, and refuses null content that says nothing", () => {
    const line = chat({
      model: "gpt-x",
      choices: [
        { index: 0, message: { content: null, refusal: "No." } },
        { index: 1, message: { content: null, tool_calls: [{ function: { name: "f" } }] } },
        { index: 2, message: { content: null }, finish_reason: "length" },
      ],
      usage,
    });
    expect(parseAnswerLine(line, "openai-batch")).toMatchObject({
      kind: "answered",
      choices: [
        { reason: "refusal", message: "No." },
        { reason: "tool_call", message: "the reply holds only tool calls (f), no text" },
        { reason: "incomplete", message: "finish_reason: length" },
      ],
    });
    const silent = chat({ model: "gpt-x", choices: [{ message: { content: null } }], usage });
    expect(parseAnswerLine(silent, "openai-batch")).toEqual({
      kind: "refused",
      field: "response.body.choices[0].message.content",
      message: expect.stringContaining("`refusal` or `tool_calls`"),
    });
  });

  it("reads a Responses API refusal part as a refusal", () => {
    const line = chat({
      model: "gpt-y",
      output: [{ type: "message", content: [{ type: "refusal", refusal: "Not that." }] }],
      usage: { input_tokens: 1, output_tokens: 1 },
    });
    expect(parseAnswerLine(line, "openai-batch")).toMatchObject({
      choices: [{ reason: "refusal", message: "Not that." }],
    });
  });

  it("reads an Anthropic stop_reason refusal as a refusal, whatever text came before", () => {
    const line = JSON.stringify({
      custom_id: "q1",
      result: {
        type: "succeeded",
        message: {
          model: "claude-x",
          content: [{ type: "text", text: "I won't" }],
          stop_reason: "refusal",
          usage: { input_tokens: 3, output_tokens: 2 },
        },
      },
    });
    expect(parseAnswerLine(line, "anthropic-batch")).toMatchObject({
      choices: [{ reason: "refusal", message: "I won't" }],
      outputTokens: 2,
    });
  });
});
