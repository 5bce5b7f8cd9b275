import { unscored } from "@assay/core";
import { z } from "zod";
import { defineScorer } from "../define-scorer.js";
import { endOfLastMatch } from "../text/last-match.js";
import { normalizeLoose, trimPunctuation } from "../text/normalize.js";
import { bestOverTargets, textTargets } from "../text/targets.js";

const AnswerArgs = z.strictObject({
  /**
   * What to take after the marker: "LETTER" a single letter A-Z ("B", "(B)", "B) ..."),
   * "WORD" the next word with edge punctuation stripped, when it stands alone (another
   * word right after it, as in "No idea", is unparseable), "LINE" the rest of the line.
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
const PUNCTUATION = /^\p{P}$/u;
// What follows a word on its line when another word comes next: spaces, then a letter or digit.
const WORD_START = /^[^\S\n]+[\p{L}\p{N}]/u;

export const answer = defineScorer({
  name: "answer",
  pool: "cpu",
  description:
    "Extracts a LETTER, WORD or LINE after the last marker and compares it to the target",
  args: AnswerArgs,
  create(args) {
    const marker = new RegExp(escapeRegex(args.marker), args.ignore_case ? "gi" : "g");
    return (sample) => {
      const targets = textTargets(sample.target);
      if (!Array.isArray(targets)) return targets;
      const rest = textAfterLast(marker, sample.answer);
      if (rest === undefined) {
        return unscored("unparseable", `no "${args.marker}" marker in the answer`);
      }
      const extraction = extract(rest, args);
      if (!extraction.ok) return unscored("unparseable", extraction.message);
      const extracted = extraction.text;
      const found = normalizeLoose(extracted, args.ignore_case);
      return bestOverTargets(targets, (target) => ({
        value: found === normalizeLoose(target, args.ignore_case) ? 1 : 0,
        detail: { extracted },
      }));
    };
  },
});

function textAfterLast(marker: RegExp, text: string): string | undefined {
  const end = endOfLastMatch(marker, text);
  return end === undefined ? undefined : text.slice(end);
}

type Extraction = { ok: true; text: string } | { ok: false; message: string };

/** What the pattern takes from the text after the marker, or why it takes nothing. */
function extract(rest: string, args: AnswerArgs): Extraction {
  const text =
    args.pattern === "WORD" ? oneWord(rest, args.marker) : extractText(rest, args.pattern);
  if (typeof text !== "string") return text;
  if (text === "") {
    return { ok: false, message: `no ${args.pattern.toLowerCase()} after "${args.marker}"` };
  }
  return { ok: true, text };
}

function extractText(rest: string, pattern: "LETTER" | "LINE"): string {
  if (pattern === "LETTER") return LETTER.exec(rest)?.[1] ?? "";
  return rest.trimStart().split("\n", 1)[0]?.trim() ?? "";
}

/**
 * The word after the marker, when it stands alone: the line ends after it, or punctuation
 * closes it ("Paris.", "Paris, because", "**Paris** is"). A word followed by another word
 * ("No idea", "New York") starts a longer answer, and its first word is not the answer.
 */
function oneWord(rest: string, marker: string): string | Extraction {
  const found = WORD.exec(rest);
  if (found?.[1] === undefined) return "";
  const token = found[1];
  const closedByPunctuation = PUNCTUATION.test(token.at(-1) ?? "");
  const lineAfter = rest.slice(found[0].length).split("\n", 1)[0] ?? "";
  if (!closedByPunctuation && WORD_START.test(lineAfter)) {
    const line = `${token}${lineAfter}`.trim();
    const shown = line.length > 80 ? `${line.slice(0, 77)}...` : line;
    return { ok: false, message: `expected one word after "${marker}", found several: "${shown}"` };
  }
  return trimPunctuation(token);
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
