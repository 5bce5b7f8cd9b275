import type { RequestFormat } from "../input-formats.js";

export { REQUEST_FORMATS, type RequestFormat } from "../input-formats.js";

/** What a provider accepts in one batch file, and how its answers come back. */
export interface RequestLimits {
  /** Requests in one file (one batch). */
  maxRequests: number;
  /** Bytes of one file. */
  maxBytes: number;
  /** A custom id the provider refuses, described; undefined when it takes any. */
  customIdProblem: (customId: string) => string | undefined;
  /** Several answers come from one request's `n`; else each is a request of its own. */
  takesN: boolean;
  /** The `--answers-format` that reads this provider's output file. */
  answersFormat: "openai-batch" | "anthropic-batch";
  /** The file name's extension: Anthropic's body is one JSON document, not JSONL. */
  extension: ".jsonl" | ".json";
}

const MB = 1024 * 1024;

// OpenAI: "up to 50,000 requests, and can be up to 200 MB in size" (Batch API, input_file_id).
const OPENAI = { maxRequests: 50_000, maxBytes: 200 * MB, answersFormat: "openai-batch" } as const;

const ANTHROPIC_ID = /^[a-zA-Z0-9_-]{1,64}$/;

/** Where each provider documents these: docs/cli.md, "Requests for a batch job". */
export const REQUEST_LIMITS: Record<RequestFormat, RequestLimits> = {
  "openai-chat": { ...OPENAI, customIdProblem: () => undefined, takesN: true, extension: ".jsonl" },
  // The Responses API has no `n`: best-of-N is N requests.
  "openai-responses": {
    ...OPENAI,
    customIdProblem: () => undefined,
    takesN: false,
    extension: ".jsonl",
  },
  // Anthropic: a batch holds up to 100,000 requests or 256 MB; custom_id ^[a-zA-Z0-9_-]{1,64}$.
  "anthropic-batch": {
    maxRequests: 100_000,
    maxBytes: 256 * MB,
    customIdProblem: (id) =>
      ANTHROPIC_ID.test(id)
        ? undefined
        : `Anthropic takes a custom_id of 1 to 64 letters, digits, "_" or "-", and this row's would be "${id}" (${id.length} characters); give the rows such ids (the spec's fields.id can read another column)`,
    takesN: false,
    answersFormat: "anthropic-batch",
    extension: ".json",
  },
  // vLLM's batch runner reads a file of any size on the machine it runs on: no split.
  vllm: {
    maxRequests: Number.POSITIVE_INFINITY,
    maxBytes: Number.POSITIVE_INFINITY,
    customIdProblem: () => undefined,
    takesN: true,
    answersFormat: "openai-batch",
    extension: ".jsonl",
  },
};
