import { scored, type Target, type UnscoredScore, unscored } from "@assay/core";
import { z } from "zod";
import { defineScorer } from "../define-scorer.js";
import { type ChoiceReading, letterOf, readAnswer, readChoice } from "../text/choice-reading.js";
import { emptyListMessage, withoutBlankEntries } from "../text/targets.js";

const ChoiceArgs = z.strictObject({
  /** Metadata key holding the list of options (strings, in letter order). Default "choices". */
  choices_field: z.string().min(1).default("choices"),
});

export const choice = defineScorer({
  name: "choice",
  pool: "cpu",
  description: "Multiple choice: the option the answer picks (letter or text) is the target's",
  args: ChoiceArgs,
  create(args) {
    return (sample) => {
      // Own keys only: `choices_field: constructor` must not find Object's constructor.
      const field = Object.hasOwn(sample.metadata, args.choices_field)
        ? sample.metadata[args.choices_field]
        : undefined;
      const options = optionsOf(field, args.choices_field);
      if (!Array.isArray(options)) return options;
      const expected = expectedOptions(sample.target, options);
      if (!(expected instanceof Set)) return expected;
      const reading = readAnswer(sample.answer, options);
      const expectedLetters = [...expected].map(letterOf);
      switch (reading.kind) {
        case "option": {
          const chosen = letterOf(reading.index);
          return scored(expected.has(reading.index) ? 1 : 0, { chosen, expected: expectedLetters });
        }
        case "out_of_range": {
          // The answer is clear, just not one of the options: wrong, not unparseable.
          const chosen = reading.letter;
          return scored(0, { chosen, expected: expectedLetters, out_of_range: true });
        }
        case "ambiguous":
          return unscored("unparseable", `the answer could mean ${lettersOf(reading)}`);
        case "none":
          return unscored("unparseable", "no option letter or option text found in the answer");
      }
    };
  },
});

function optionsOf(value: unknown, field: string): string[] | UnscoredScore {
  const isOptionList =
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((option) => typeof option === "string" || typeof option === "number");
  if (!isOptionList) {
    return unscored("invalid_target", `metadata.${field} must be a non-empty list of options`);
  }
  // The usual list, all text, is used as it is (only read): no copy per sample.
  if (value.every((option) => typeof option === "string")) return value as string[];
  return value.map(String);
}

/**
 * The target as option indexes: a letter, a 0-based index, an option's text, or a list of
 * these (blank entries skipped).
 */
function expectedOptions(
  target: Target | undefined,
  options: string[],
): Set<number> | UnscoredScore {
  if (target === undefined) return unscored("invalid_target", "this scorer needs a `target`");
  const list = Array.isArray(target) ? withoutBlankEntries(target) : [target];
  if (list.length === 0) return unscored("invalid_target", emptyListMessage(target));
  const indexes = new Set<number>();
  for (const item of list) {
    const index = optionIndex(item, options);
    if (index === undefined) {
      const shown = JSON.stringify(item);
      return unscored(
        "invalid_target",
        `target ${shown} is not a letter A-${letterOf(options.length - 1)}, an index 0-${options.length - 1} or an option's text`,
      );
    }
    indexes.add(index);
  }
  return indexes;
}

function optionIndex(item: unknown, options: string[]): number | undefined {
  if (typeof item === "number") {
    return Number.isInteger(item) && item >= 0 && item < options.length ? item : undefined;
  }
  if (typeof item !== "string") return undefined;
  const reading = readChoice(item, options);
  return reading.kind === "option" ? reading.index : undefined;
}

function lettersOf(reading: Extract<ChoiceReading, { kind: "ambiguous" }>): string {
  return reading.indexes.map(letterOf).join(" or ");
}
