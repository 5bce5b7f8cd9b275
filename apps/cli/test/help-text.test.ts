import { assayInProcess } from "@assay/test-support/assay-in-process";
import type { CommandUnknownOpts as Command } from "@commander-js/extra-typings";
import { describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";
import { createProgram } from "../src/program.js";

// Every command's --help writes a default once, and values as they are typed on the
// command line: `10`, not `"10"`; `500,2000`, not `[500,2000]`.

interface HelpEntry {
  command: string;
  term: string;
  description: string;
}

/** Every command, subcommands included, with the path a user types (`model check`). */
function commandsOf(command: Command, path: string[] = []): [string, Command][] {
  return command.commands.flatMap((sub) => {
    const subPath = [...path, sub.name()];
    return [[subPath.join(" "), sub] as [string, Command], ...commandsOf(sub, subPath)];
  });
}

function entriesOf(name: string, command: Command): HelpEntry[] {
  const help = command.createHelp();
  return [
    ...help.visibleOptions(command).map((option) => ({
      command: name,
      term: help.optionTerm(option),
      description: help.optionDescription(option),
    })),
    ...help.visibleArguments(command).map((argument) => ({
      command: name,
      term: help.argumentTerm(argument),
      description: help.argumentDescription(argument),
    })),
  ];
}

const commands = commandsOf(createProgram());
const entries = commands.flatMap(([name, command]) => entriesOf(name, command));
const shown = (entry: HelpEntry) => `assay ${entry.command} ${entry.term}: ${entry.description}`;

describe("assay <command> --help", () => {
  it("walks every command", () => {
    const names = commands.map(([name]) => name);
    for (const name of ["run", "report", "show", "export", "status", "model check", "probe fit"]) {
      expect(names).toContain(name);
    }
    expect(entries.length).toBeGreaterThan(100);
  });

  it("states each option's default once", () => {
    const twice = entries.filter((entry) => (entry.description.match(/default/g) ?? []).length > 1);
    expect(twice.map(shown)).toEqual([]);
  });

  it("writes every default as `(default: <value>)`", () => {
    const other = entries.filter((entry) => /\(default(?!: )/.test(entry.description));
    expect(other.map(shown)).toEqual([]);
  });

  it("writes numbers and choices unquoted, and lists as they are typed", () => {
    const quoted = entries.filter((entry) => /"-?\d[\d.]*"/.test(entry.description));
    expect(quoted.map(shown)).toEqual([]);
    const quotedChoices = entries.filter((entry) => /\(choices: "/.test(entry.description));
    expect(quotedChoices.map(shown)).toEqual([]);
    const jsonArrays = entries.filter((entry) =>
      /\[\s*(?:-?\d[\d.]*|"[^"]*")(?:\s*,\s*(?:-?\d[\d.]*|"[^"]*"))*\s*\]/.test(entry.description),
    );
    expect(jsonArrays.map(shown)).toEqual([]);
  });

  it("prints the defaults a user would type, from the command itself", async () => {
    const fit = await assayInProcess(["probe", "fit", "--help"]);
    expect(fit.code, fit.stderr).toBe(ExitCode.ok);
    expect(fit.stdout).toMatch(/--folds <n>\s+cross-validation folds \(default: 5\)\n/);
    const check = await assayInProcess(["model", "check", "--help"]);
    expect(check.stdout.replace(/\s+/g, " ")).toContain(
      "input lengths in tokens (default: 500,2000,2100,4000,8000)",
    );
    const report = await assayInProcess(["report", "--help"]);
    expect(report.stdout).toMatch(/--trend <n>\s+runs in the trend \(default: 10\)\n/);
    // Help wraps to the terminal's width: compare the words, not where the lines break.
    expect(report.stdout.replace(/\s+/g, " ")).toContain(
      "(choices: table, json, html; default: table)",
    );
  });
});
