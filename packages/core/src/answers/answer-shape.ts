import type { z } from "zod";
import { firstIssue } from "../zod-issues.js";

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
      /** One text per choice, in choice order. */
      choices: string[];
      inputTokens: number;
      cachedInputTokens: number;
      /** Input tokens written to the provider's prompt cache, apart from `inputTokens`. */
      cacheWriteTokens: number;
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
