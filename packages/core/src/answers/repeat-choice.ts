import type { AnswerChoice } from "./answer-shape.js";

/**
 * A repeat request's (`<id>__s<k>`) one answer, as the join makes it and `assay show`
 * reads it back: its texts joined, or why it has none when none has text.
 */
export function repeatChoice(choices: readonly AnswerChoice[]): AnswerChoice {
  const texts = choices.filter((choice): choice is string => typeof choice === "string");
  if (texts.length === 0 && choices.length > 0) return choices[0] as AnswerChoice;
  return texts.join("");
}
