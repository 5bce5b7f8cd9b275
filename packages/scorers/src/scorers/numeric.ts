import { scored, type Target, unscored } from "@assay/core";
import { z } from "zod";
import { defineScorer } from "../define-scorer.js";
import { type FoundNumber, numberFinder } from "../text/find-numbers.js";
import { emptyListMessage, withoutBlankEntries } from "../text/targets.js";

const NumericArgs = z.strictObject({
  /** Absolute tolerance: |answer - target| <= tolerance counts as equal. Default 0. */
  tolerance: z.number().min(0).default(0),
  /** Relative tolerance: |answer - target| <= relative_tolerance * |target|. Default 0. */
  relative_tolerance: z.number().min(0).default(0),
  /**
   * Digit-group separator: "," (1,234.5), "." (1.234,5, decimal comma), " ", "'", or ""
   * for none. Default ",".
   */
  thousands_separator: z
    .string()
    .max(1)
    .refine(
      (sep) => !/[\d\p{L}]/u.test(sep),
      "must be punctuation or a space, not a digit or letter",
    )
    .default(","),
  /**
   * Accepted units, written right after the number ("km", "%") or as a currency sign
   * before it ("$"); case-sensitive. When given, a number followed by any other word does
   * not count ("12 miles" is skipped for ["km"]). Default: any unit is accepted and ignored.
   */
  units: z.array(z.string().min(1)).min(1).optional(),
});

export const numeric = defineScorer({
  name: "numeric",
  pool: "cpu",
  description: "The last number in the answer equals the target within a tolerance",
  args: NumericArgs,
  create(args) {
    const findNumbers = numberFinder(args.thousands_separator);
    const accepted = args.units === undefined ? undefined : new Set(args.units);
    const isAccepted = (found: FoundNumber): boolean =>
      accepted === undefined || found.unit === undefined || accepted.has(found.unit);
    const distanceAllowed = (target: number): number =>
      Math.max(args.tolerance, args.relative_tolerance * Math.abs(target));

    return (sample) => {
      const targets = targetNumbers(sample.target, findNumbers);
      if (!Array.isArray(targets)) return unscored("invalid_target", targets);
      const found = findNumbers(sample.answer).filter(isAccepted).at(-1);
      if (found === undefined) {
        const which =
          accepted === undefined ? "" : ` with unit ${[...accepted].join(" / ")} or none`;
        return unscored("unparseable", `no number${which} in the answer`);
      }
      const hit = targets.find(
        (target) => Math.abs(found.value - target) <= distanceAllowed(target),
      );
      const detail = { parsed: found.value, unit: found.unit ?? null, target: hit ?? targets[0] };
      return scored(hit === undefined ? 0 : 1, detail);
    };
  },
});

/** Target numbers (a list means any of them), or why the target is unusable. */
function targetNumbers(
  target: Target | undefined,
  findNumbers: (text: string) => FoundNumber[],
): number[] | string {
  if (target === undefined) return "this scorer needs a `target`";
  const list = Array.isArray(target) ? withoutBlankEntries(target) : [target];
  if (list.length === 0) return emptyListMessage(target);
  const numbers: number[] = [];
  for (const item of list) {
    const value =
      typeof item === "number"
        ? item
        : typeof item === "string"
          ? findNumbers(item).at(-1)?.value
          : undefined;
    if (value === undefined || !Number.isFinite(value))
      return `target ${JSON.stringify(item)} is not a number`;
    numbers.push(value);
  }
  return numbers;
}
