import { readFileSync } from "node:fs";

// A stand-in for a provider's batch service, in the test only: it reads a request file
// `assay requests` wrote and writes the output file that provider documents, with what a
// request's custom id asks for: an answer (with cached tokens), an error, or expiry.

export interface Reply {
  /** Answer text per prompt: the fake answers from the prompt it was sent. */
  answerTo: (prompt: string, sample: number) => string;
  /** Base custom ids whose requests fail, and how. */
  failed: Record<string, "errored" | "expired">;
  /** Usage of one request: prompt tokens (cached included for OpenAI), cached, writes, output per answer. */
  usage: (
    baseId: string,
    sample: number,
  ) => { input: number; cached: number; writes: number; output: number };
  model: string;
}

interface RequestLine {
  custom_id: string;
  body?: {
    messages?: { role: string; content: string }[];
    input?: { content: string }[];
    n?: number;
  };
  params?: { messages: { content: string }[] };
}

/** Custom id `<id>__s<k>` → [id, k]; any other → [id, 0]. */
function baseOf(customId: string): [string, number] {
  const match = /^(.*)__s(\d+)$/.exec(customId);
  return match === null ? [customId, 0] : [match[1] as string, Number(match[2])];
}

export function requestLines(file: string): RequestLine[] {
  const text = readFileSync(file, "utf8");
  if (text.startsWith('{"requests":')) return JSON.parse(text).requests;
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line));
}

/** The user prompt a request carries, whatever its API. */
export function promptOf(request: RequestLine): string {
  if (request.params !== undefined)
    return (request.params.messages[0] as { content: string }).content;
  if (request.body?.input !== undefined)
    return (request.body.input[0] as { content: string }).content;
  const user = request.body?.messages?.find((message) => message.role === "user");
  return user?.content ?? "";
}

export function openaiOutput(files: string[], reply: Reply): string {
  return files
    .flatMap(requestLines)
    .map((request) => {
      const [base, sample] = baseOf(request.custom_id);
      const failure = reply.failed[base];
      if (failure === "expired") {
        return {
          custom_id: request.custom_id,
          response: null,
          error: {
            code: "batch_expired",
            message: "This request could not be executed before the completion window expired.",
          },
        };
      }
      if (failure === "errored") {
        return {
          custom_id: request.custom_id,
          response: { status_code: 500, body: { error: { message: "The server had an error" } } },
          error: null,
        };
      }
      const n = request.body?.n ?? 1;
      const use = reply.usage(base, sample);
      const texts = Array.from({ length: n }, (_, k) =>
        reply.answerTo(promptOf(request), sample + k),
      );
      const body =
        request.body?.input !== undefined
          ? {
              object: "response",
              model: reply.model,
              output: [{ type: "message", content: [{ type: "output_text", text: texts[0] }] }],
              usage: {
                input_tokens: use.input,
                output_tokens: use.output,
                input_tokens_details: { cached_tokens: use.cached },
              },
            }
          : {
              object: "chat.completion",
              model: reply.model,
              choices: texts.map((text, index) => ({
                index,
                message: { role: "assistant", content: text },
              })),
              usage: {
                prompt_tokens: use.input,
                completion_tokens: use.output * n,
                prompt_tokens_details: { cached_tokens: use.cached },
              },
            };
      return { custom_id: request.custom_id, response: { status_code: 200, body }, error: null };
    })
    .map((line) => JSON.stringify(line))
    .join("\n");
}

export function anthropicOutput(files: string[], reply: Reply): string {
  return files
    .flatMap(requestLines)
    .map((request) => {
      const [base, sample] = baseOf(request.custom_id);
      const failure = reply.failed[base];
      if (failure !== undefined) {
        const error = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } };
        return {
          custom_id: request.custom_id,
          result: { type: failure, ...(failure === "errored" && { error }) },
        };
      }
      const use = reply.usage(base, sample);
      const message = {
        model: reply.model,
        content: [{ type: "text", text: reply.answerTo(promptOf(request), sample) }],
        usage: {
          input_tokens: use.input,
          cache_read_input_tokens: use.cached,
          cache_creation_input_tokens: use.writes,
          output_tokens: use.output,
        },
      };
      return { custom_id: request.custom_id, result: { type: "succeeded", message } };
    })
    .map((line) => JSON.stringify(line))
    .join("\n");
}
