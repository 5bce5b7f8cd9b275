import type { Argument, HelpConfiguration, Option } from "@commander-js/extra-typings";

/**
 * How `--help` writes an option's or argument's choices and default. Commander writes them
 * as JSON (`(default: "10")`, `[500,2000]`, `"on"`) and appends its default even when the
 * description already states one; here a value is written as it is typed on the command
 * line (`10`, `500,2000`, `on`), and a description that states its own `(default: ...)`
 * keeps it alone.
 */
export const helpFormat: HelpConfiguration = {
  optionDescription: (option) => describe(option.description, optionDetails(option)),
  argumentDescription: (argument) => describe(argument.description, argumentDetails(argument)),
};

function optionDetails(option: Option): string[] {
  // A boolean flag's default (false) says nothing a user needs; commander hides it too.
  const takesValue = option.required || option.optional;
  const showsDefault =
    option.defaultValue !== undefined &&
    (takesValue || (option.isBoolean() && typeof option.defaultValue === "boolean"));
  return details(
    option.description,
    option.argChoices,
    showsDefault ? (option.defaultValueDescription ?? option.defaultValue) : undefined,
  );
}

function argumentDetails(argument: Argument): string[] {
  return details(
    argument.description,
    argument.argChoices,
    argument.defaultValueDescription ?? argument.defaultValue,
  );
}

function details(description: string, choices: string[] | undefined, fallback: unknown): string[] {
  const shown: string[] = [];
  if (choices !== undefined) shown.push(`choices: ${choices.join(", ")}`);
  if (fallback !== undefined && !statesDefault(description)) {
    shown.push(`default: ${asTyped(fallback)}`);
  }
  return shown;
}

function describe(description: string, details: string[]): string {
  if (details.length === 0) return description;
  const extra = `(${details.join("; ")})`;
  return description === "" ? extra : `${description} ${extra}`;
}

/** Whether the text already names the default, as `--run-id`'s "(default: <dataset>-<time>)". */
function statesDefault(description: string): boolean {
  return /\(default:/.test(description);
}

/** A value as it would be typed on the command line. */
function asTyped(value: unknown): string {
  if (Array.isArray(value)) return value.map(asTyped).join(",");
  if (typeof value === "object" && value !== null) return JSON.stringify(value);
  return String(value);
}
