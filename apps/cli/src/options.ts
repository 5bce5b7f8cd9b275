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

export type DeviceName = "cpu" | `cuda:${number}`;

/** Commander parser for `--device`: `cpu` or `cuda:<id>`. */
export function deviceName(value: string): DeviceName {
  if (value === "cpu" || /^cuda:\d+$/.test(value)) return value as DeviceName;
  throw new InvalidArgumentError(
    `Expected --device to be "cpu" or "cuda:<id>" (e.g. cuda:0), got "${value}".`,
  );
}
