import { repeatCustomId } from "./repeat-id.js";
import { REQUEST_LIMITS, type RequestFormat } from "./request-format.js";

/** What every request of a batch shares: `assay requests`' flags. */
export interface RequestSettings {
  model: string;
  /** System prompt; none when undefined. */
  system?: string;
  /** The most tokens an answer may take (Anthropic requires it). */
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  /** Answers per row (best-of-N): `n` where the API takes it, else one request each. */
  samples: number;
}

/** One request, ready to be written as a line: its custom id and its JSON object. */
export interface BatchRequest {
  customId: string;
  body: Record<string, unknown>;
}

/**
 * The requests of one row: one with `n` = samples where the format takes `n`, else one per
 * sample with custom ids `<id>__s<k>` (just `<id>` for one sample, so the join needs no flag).
 */
export function requestsOfRow(
  format: RequestFormat,
  settings: RequestSettings,
  id: string,
  prompt: string,
): BatchRequest[] {
  if (REQUEST_LIMITS[format].takesN || settings.samples === 1) {
    return [{ customId: id, body: requestLine(format, settings, id, prompt, settings.samples) }];
  }
  return Array.from({ length: settings.samples }, (_, sample) => {
    const customId = repeatCustomId(id, sample);
    return { customId, body: requestLine(format, settings, customId, prompt, 1) };
  });
}

function requestLine(
  format: RequestFormat,
  settings: RequestSettings,
  customId: string,
  prompt: string,
  n: number,
): Record<string, unknown> {
  switch (format) {
    case "openai-chat":
      return openaiLine(
        "/v1/chat/completions",
        customId,
        chatBody(settings, prompt, n, "max_completion_tokens"),
      );
    case "vllm":
      // vLLM's OpenAI server takes `max_tokens`; `max_completion_tokens` only in newer releases.
      return openaiLine(
        "/v1/chat/completions",
        customId,
        chatBody(settings, prompt, n, "max_tokens"),
      );
    case "openai-responses":
      return openaiLine("/v1/responses", customId, responsesBody(settings, prompt));
    case "anthropic-batch":
      return { custom_id: customId, params: anthropicParams(settings, prompt) };
  }
}

function openaiLine(url: string, customId: string, body: Record<string, unknown>) {
  return { custom_id: customId, method: "POST", url, body };
}

function sampling(settings: RequestSettings): Record<string, unknown> {
  return {
    ...(settings.temperature !== undefined && { temperature: settings.temperature }),
    ...(settings.topP !== undefined && { top_p: settings.topP }),
  };
}

function chatBody(
  settings: RequestSettings,
  prompt: string,
  n: number,
  maxTokensKey: "max_completion_tokens" | "max_tokens",
): Record<string, unknown> {
  const messages = [
    ...(settings.system !== undefined ? [{ role: "system", content: settings.system }] : []),
    { role: "user", content: prompt },
  ];
  return {
    model: settings.model,
    messages,
    ...(settings.maxTokens !== undefined && { [maxTokensKey]: settings.maxTokens }),
    ...sampling(settings),
    ...(n > 1 && { n }),
  };
}

function responsesBody(settings: RequestSettings, prompt: string): Record<string, unknown> {
  return {
    model: settings.model,
    ...(settings.system !== undefined && { instructions: settings.system }),
    input: [{ role: "user", content: prompt }],
    ...(settings.maxTokens !== undefined && { max_output_tokens: settings.maxTokens }),
    ...sampling(settings),
  };
}

function anthropicParams(settings: RequestSettings, prompt: string): Record<string, unknown> {
  return {
    model: settings.model,
    max_tokens: settings.maxTokens,
    ...(settings.system !== undefined && { system: settings.system }),
    messages: [{ role: "user", content: prompt }],
    ...sampling(settings),
  };
}
