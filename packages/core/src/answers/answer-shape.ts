import type { z } from "zod";
import type { Unanswered } from "../sample.js";
import { firstIssue } from "../zod-issues.js";

/**
 * One choice of a reply: its text, or why it holds none (a refusal, only tool calls, a
 * reply cut off). A choice with no text is stored unscored with that reason, never scored
 * as an empty answer; its request's tokens are billed all the same.
 */
export type AnswerChoice = string | Unanswered;

/**
 * What one line of a batch output said, in the store's usage convention: `inputTokens`
 * are uncached, cached input tokens and cache writes are counted apart, so each token is
 * priced once.
 */
export type BatchAnswer =
  | {
      kind: "answered";
      customId: string;
      model: string;
      /** One per choice, in choice order. */
      choices: AnswerChoice[];
      inputTokens: number;
      cachedInputTokens: number;
      /** Input tokens written to the provider's prompt cache, apart from `inputTokens`. */
      cacheWriteTokens: number;
      /** The part of `cacheWriteTokens` written to a 1-hour cache. */
      cacheWrite1hTokens: number;
      outputTokens: number;
    }
  | { kind: "failed"; customId: string; outcome: FailedOutcome; reason: string };

export type FailedOutcome = "errored" | "canceled" | "expired";

/** A line that is not a batch output line: the field and what was expected. */
export interface AnswerLineProblem {
  kind: "refused";
  field: string;
  message: string;
}

/** The first zod issue of a line, as a refusal naming its field. */
export function refusedByIssue(error: z.ZodError, json: unknown): AnswerLineProblem {
  return { kind: "refused", ...firstIssue(error, json) };
}

export function refused(field: string, message: string): AnswerLineProblem {
  return { kind: "refused", field, message };
}

/**
 * A line with none of its format's own top-level keys, told apart from a malformed one:
 * when it carries the other format's key instead, the file was most likely given with the
 * wrong `--answers-format`, and every line would otherwise read as a failed request.
 */
export function missingTopLevelKey(
  json: unknown,
  own: { format: string; keys: readonly string[] },
  other: { format: string; key: string; source: string },
): AnswerLineProblem | undefined {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return undefined;
  // Without a custom_id it is no batch output line at all: the schema's refusal says so.
  if (!("custom_id" in json)) return undefined;
  if (own.keys.some((key) => key in json)) return undefined;
  const keys = own.keys.map((key) => `\`${key}\``).join(" or ");
  const hint =
    other.key in json
      ? `; it has \`${other.key}\`, as ${other.source} lines do: read the file with --answers-format ${other.format}`
      : "";
  const none = own.keys.length > 1 ? "neither" : "none";
  return refused(
    own.keys[0] as string,
    `an ${own.format} line has ${keys}; this one has ${none}${hint}`,
  );
}

/** What an unscored `tool_call` choice says: the tools it called, by name. */
export function toolCallMessage(names: readonly (string | undefined)[]): string {
  const named = names.map((name) => name ?? "(unnamed)").join(", ");
  return `the reply holds only tool calls (${named}), no text`;
}
