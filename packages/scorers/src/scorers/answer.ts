import { unscored } from "@assay/core";
import { z } from "zod";
import { defineScorer } from "../define-scorer.js";
import { normalizeLoose, trimPunctuation } from "../text/normalize.js";
import { bestOverTargets, textTargets } from "../text/targets.js";

const AnswerArgs = z.strictObject({
  /**
   * What to take after the marker: "LETTER" a single letter A-Z ("B", "(B)", "B) ..."),
   * "WORD" the next word with edge punctuation stripped, "LINE" the rest of the line.
   * Required.
   */
  pattern: z.enum(["LETTER", "WORD", "LINE"]),
  /** Text that introduces the answer; the last occurrence counts. Default "ANSWER:". */
  marker: z.string().min(1).default("ANSWER:"),
  /** Find the marker and compare with the target case-insensitively. Default true. */
  ignore_case: z.boolean().default(true),
});
type AnswerArgs = z.output<typeof AnswerArgs>;

// A letter standing alone: "B", "(B)", "B) Paris", "B." — but not the "B" of "Because".
const LETTER = /^\s*[([]?([A-Za-z])(?![\p{L}\p{N}])/u;
const WORD = /^\s*(\S+)/;

export const answer = defineScorer({
  name: "answer",
  pool: "cpu",
  description:
    "Extracts a LETTER, WORD or LINE after the last marker and compares it to the target",
  args: AnswerArgs,
  create(args) {
    const marker = new RegExp(escapeRegex(args.marker), args.ignore_case ? "gi" : "g");
    return async (sample) => {
      const targets = textTargets(sample.target);
      if (!Array.isArray(targets)) return targets;
      const rest = textAfterLast(marker, sample.answer);
      if (rest === undefined) {
        return unscored("unparseable", `no "${args.marker}" marker in the answer`);
      }
      const extracted = extract(rest, args.pattern);
      if (extracted === "") {
        return unscored("unparseable", `no ${args.pattern.toLowerCase()} after "${args.marker}"`);
      }
      const found = normalizeLoose(extracted, args.ignore_case);
      return bestOverTargets(targets, (target) => ({
        value: found === normalizeLoose(target, args.ignore_case) ? 1 : 0,
        detail: { extracted },
      }));
    };
  },
});

function textAfterLast(marker: RegExp, text: string): string | undefined {
  let end: number | undefined;
  for (const found of text.matchAll(marker)) end = found.index + found[0].length;
  return end === undefined ? undefined : text.slice(end);
}

function extract(rest: string, pattern: AnswerArgs["pattern"]): string {
  switch (pattern) {
    case "LETTER":
      return LETTER.exec(rest)?.[1] ?? "";
    case "WORD":
      return trimPunctuation(WORD.exec(rest)?.[1] ?? "");
    case "LINE":
      return rest.trimStart().split("\n", 1)[0]?.trim() ?? "";
  }
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
