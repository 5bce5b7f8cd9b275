import { assayInProcess } from "@assay/test-support/assay-in-process";
import type { CommandUnknownOpts as Command, Option } from "@commander-js/extra-typings";
import { describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";
import { isNumberParser } from "../src/options.js";
import { createProgram } from "../src/program.js";

/** A flag that takes a number: a number placeholder or a numeric default says so. */
const NUMBER_PLACEHOLDER = /<(n|m|d|ms|port|seconds)>/;
/** Values no numeric flag accepts: not a number, below every flag's minimum, empty. */
const BAD_VALUES = ["abc", "-1", ""];

interface NumericFlag {
  /** The command's path, e.g. "model check". */
  command: string;
  /** The command line but the flag: command path, its arguments, its required options. */
  prefix: string[];
  flag: string;
  option: Option;
  /** Parsed by one of the shared number parsers of src/options.ts. */
  sharedParser: boolean;
}

/** Every numeric flag of every command, with what the command needs to get to parsing it. */
function numericFlags(): NumericFlag[] {
  const found: NumericFlag[] = [];
  const walk = (command: Command, path: string[]) => {
    if (command.commands.length > 0) {
      for (const sub of command.commands) walk(sub, [...path, sub.name()]);
      return;
    }
    const args = command.registeredArguments.filter((a) => a.required).map(() => "x");
    const required = command.options
      .filter((o) => o.mandatory)
      .flatMap((o) => [o.long as string, mandatoryValue(o)]);
    // A store folder that does not exist: a flag that slipped past parsing is refused there.
    const db = command.options.some((o) => o.long === "--db") ? ["--db", "/nonexistent/store"] : [];
    for (const option of command.options.filter(isNumeric)) {
      found.push({
        command: path.join(" "),
        prefix: [...path, ...args, ...required, ...db],
        flag: option.long as string,
        option,
        sharedParser: isNumberParser(option.parseArg),
      });
    }
  };
  walk(createProgram(), []);
  return found;
}

/** A number placeholder, a numeric default, or a number parser (lists such as 500,2000). */
function isNumeric(option: Option): boolean {
  return (
    NUMBER_PLACEHOLDER.test(option.flags) ||
    typeof option.defaultValue === "number" ||
    isNumberParser(option.parseArg)
  );
}

function mandatoryValue(option: Option): string {
  return option.argChoices?.[0] ?? "out";
}

describe("numeric flags", () => {
  const flags = numericFlags();

  it("are found on every command that has them", () => {
    const names = flags.map((f) => `${f.command} ${f.flag}`);
    for (const expected of [
      "run --concurrency",
      "report --trend",
      "report --fall-steps",
      "report --min-fall",
      "report --resamples",
      "report --seed",
      "report --statement-timeout",
      "worker --metrics-port",
      "worker --devices",
      "probe fit --folds",
      "model check --lengths",
    ]) {
      expect(names).toContain(expected);
    }
  });

  it("are all parsed by the shared number parsers, one per kind of flag", () => {
    const adHoc = flags.filter((f) => !f.sharedParser).map((f) => `${f.command} ${f.flag}`);
    expect(adHoc).toEqual([]);
  });

  it("refuse every bad value in their own parser", () => {
    const accepted = flags.flatMap(({ command, option, flag }) =>
      BAD_VALUES.filter((value) => parses(option, value)).map((v) => `${command} ${flag}=${v}`),
    );
    expect(accepted).toEqual([]);
  });

  // The parsers above refuse each bad value; what a user sees of a refusal (exit 2, the
  // flag named) is the command line's, so each flag is tried once as a user would type
  // it, the bad values taking turns so that each is seen on some command.
  it("refuse a bad value as bad usage (2), naming the flag, on every command", async () => {
    const results = [];
    for (const [i, { prefix, flag }] of flags.entries()) {
      const args = [...prefix, `${flag}=${BAD_VALUES[i % BAD_VALUES.length]}`];
      const { code, stderr } = await assayInProcess(args);
      results.push({ command: args.join(" "), code, namesFlag: stderr.includes(flag), stderr });
    }
    const wrong = results.filter((r) => r.code !== ExitCode.usage || !r.namesFlag);
    expect(wrong, JSON.stringify(wrong, null, 2)).toEqual([]);
  });
});

/** Whether a flag's parser takes the value (it throws on one it refuses). */
function parses(option: Option, value: string): boolean {
  try {
    option.parseArg?.(value, option.defaultValue);
    return true;
  } catch {
    return false;
  }
}
