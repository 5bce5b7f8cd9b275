/// <reference lib="es2024.string" />

import type { AnswerFormat } from "../answer-join.js";
import { printable } from "../validation/describe-value.js";
import { MAX_ID_LENGTH } from "../validation/limits.js";
import { type AnswerLineProblem, type BatchAnswer, refused } from "./answer-shape.js";
import { anthropicAnswer } from "./anthropic-batch.js";
import { openaiAnswer } from "./openai-batch.js";

/** Parses one line of a batch output file in the given format. */
export function parseAnswerLine(
  text: string,
  format: AnswerFormat,
): BatchAnswer | AnswerLineProblem {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const detail = printable(error instanceof Error ? error.message : String(error));
    return refused("", `malformed JSON (${detail}); each line must be one batch output object`);
  }
  const answer = format === "openai-batch" ? openaiAnswer(json) : anthropicAnswer(json);
  if (answer.kind === "refused") return answer;
  const problem = unstorable(answer);
  return problem ?? answer;
}

/** Text the store could not hold (NUL, a lone surrogate) is refused here, with its field. */
function unstorable(answer: BatchAnswer): AnswerLineProblem | undefined {
  if (answer.customId.length > MAX_ID_LENGTH) {
    return refused(
      "custom_id",
      `a custom_id must be at most ${MAX_ID_LENGTH} characters, got ${answer.customId.length}`,
    );
  }
  const texts: [string, string][] = [["custom_id", answer.customId]];
  if (answer.kind === "answered") {
    texts.push(["model", answer.model]);
    answer.choices.forEach((choice, index) => {
      texts.push([`choices[${index}]`, typeof choice === "string" ? choice : choice.message]);
    });
  }
  for (const [field, value] of texts) {
    if (value.includes("\u0000") || !value.isWellFormed()) {
      return refused(field, "contains a NUL character or a lone surrogate, which cannot be stored");
    }
  }
  return undefined;
}
