import { endOfLastMatch } from "./last-match.js";
import { normalizeLoose, trimPunctuation } from "./normalize.js";

/** What a piece of text says about a multiple-choice question. */
export type ChoiceReading =
  | { kind: "option"; index: number }
  | { kind: "out_of_range"; letter: string }
  | { kind: "ambiguous"; indexes: number[] }
  | { kind: "none" };

// "B) Paris", "(B) Paris", "B. Paris", "B: Paris" (the text may run over several lines).
const LETTER_WITH_TEXT = /^[([]?([A-Za-z])[)\].:]\s*(.+)$/s;
// The word "answer" and its plurals ("answers", "answer(s)"), taken whole so that the "S"
// of "ANSWERS: A" is never read as the letter picked.
const ANSWER_WORD = String.raw`answer(?:s|\(s\))?(?![\p{L}\p{N}_])(?:\s+(?:is|are))?\s*:?`;
const LEADING_MARKER = new RegExp(String.raw`^(?:the\s+)?(?:final\s+)?${ANSWER_WORD}\s*`, "iu");
const MARKER = new RegExp(String.raw`(?<![\p{L}\p{N}_])${ANSWER_WORD}`, "giu");

/** "A" for 0; options past Z have no letter and are shown by index. */
export function letterOf(index: number): string {
  return index < 26 ? String.fromCharCode(65 + index) : `#${index}`;
}

/**
 * Reads a model's answer. A marker line ("... the answer is C") wins over the answer's
 * start, because a model that restates the options begins with "A) ..." whatever it picks.
 */
export function readAnswer(answer: string, options: readonly string[]): ChoiceReading {
  const afterMarker = textAfterLastMarker(answer);
  if (afterMarker !== undefined) {
    const reading = readChoice(afterMarker, options);
    if (reading.kind !== "none") return reading;
  }
  return readChoice(answer, options);
}

/**
 * Reads a letter ("B", "(B)", "B) text", "Answer: B") or an option's exact text. Every
 * option the text could mean is collected: more than one is ambiguous, never a guess.
 */
export function readChoice(text: string, options: readonly string[]): ChoiceReading {
  const body = text.trim().replace(LEADING_MARKER, "");
  const letter = letterForm(body);
  const letterIndex = letter === undefined ? -1 : letter.letter.toUpperCase().charCodeAt(0) - 65;
  // A bare letter names an option by position, even when some option's text is
  // letter-like ("B-" among blood types): reading it as text would make it ambiguous.
  if (letter?.text === "" && letterIndex < options.length) {
    return { kind: "option", index: letterIndex };
  }
  const meant = new Set<number>();
  if (letter !== undefined) {
    if (letterIndex < options.length) meant.add(letterIndex);
    for (const other of optionsMatching(letter.text, options)) meant.add(other);
  }
  for (const index of optionsMatching(body, options)) meant.add(index);
  const indexes = [...meant];
  if (indexes.length > 1) return { kind: "ambiguous", indexes };
  const [index] = indexes;
  if (index !== undefined) return { kind: "option", index };
  if (letter !== undefined) return { kind: "out_of_range", letter: letter.letter.toUpperCase() };
  return { kind: "none" };
}

function letterForm(text: string): { letter: string; text: string } | undefined {
  const bare = trimPunctuation(text);
  if (/^[A-Za-z]$/.test(bare)) return { letter: bare, text: "" };
  const found = LETTER_WITH_TEXT.exec(text);
  if (found?.[1] === undefined || found[2] === undefined) return undefined;
  return { letter: found[1], text: found[2] };
}

function optionsMatching(text: string, options: readonly string[]): number[] {
  const wanted = normalizeLoose(text, true);
  if (wanted === "") return [];
  const indexes: number[] = [];
  options.forEach((option, index) => {
    if (normalizeLoose(option, true) === wanted) indexes.push(index);
  });
  return indexes;
}

function textAfterLastMarker(answer: string): string | undefined {
  const end = endOfLastMatch(MARKER, answer);
  if (end === undefined) return undefined;
  return answer.slice(end).split("\n", 1)[0];
}
