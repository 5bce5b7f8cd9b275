import { InvalidArgumentError } from "@commander-js/extra-typings";

/** The units `--older-than` takes, in milliseconds. No months or years: their length varies. */
const UNIT_MS = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 } as const;

const DURATION = /^([1-9][0-9]{0,5})(h|d|w)$/;

/**
 * Commander parser for a duration such as `90d`, `12h` or `8w`: a whole number and one unit
 * (h hours, d days, w weeks), so that `30` (milliseconds? days?) or `1.5d` is bad usage
 * with an example instead of a guess.
 */
export function duration(flag: string) {
  return (value: string): number => {
    const match = DURATION.exec(value.trim());
    if (match === null) {
      throw new InvalidArgumentError(
        `${flag} takes a whole number from 1 and a unit: h (hours), d (days) or w (weeks), e.g. 90d or 12h; got "${value}".`,
      );
    }
    const [, amount, unit] = match as unknown as [string, string, keyof typeof UNIT_MS];
    return Number(amount) * UNIT_MS[unit];
  };
}
