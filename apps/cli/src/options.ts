import { InvalidArgumentError } from "commander";

/** Commander parser for a positive integer option. */
export function positiveInt(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 1) {
      throw new InvalidArgumentError(
        `Expected ${name} to be an integer from 1 and up, got "${value}".`,
      );
    }
    return parsed;
  };
}
