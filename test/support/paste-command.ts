import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { cliArgs } from "@assay/test-support/built-entry";
import { type ProcessOutput, processOutput } from "@assay/test-support/process-output";
import { quote } from "shell-quote";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Runs a command Assay printed exactly as a user pasting it would: in a shell, with `assay`
 * the built CLI by its absolute path, and DATABASE_URL unset as in `startAssay`.
 */
export async function pasteCommand(command: string): Promise<ProcessOutput> {
  // By absolute paths: a command pasted after a `cd` elsewhere still finds the CLI.
  const assay = quote([process.execPath, ...cliArgs([])]);
  const child = spawn("bash", ["-c", `assay() { ${assay} "$@"; }\n${command}`], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: undefined },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return processOutput(child);
}

/** The command at the end of the first printed line that starts with `start`. */
export function commandAfter(text: string, start: string, marker = "with: "): string {
  const line = text.split("\n").find((l) => l.startsWith(start));
  if (line === undefined) throw new Error(`no line starting with ${start} in:\n${text}`);
  return line.slice(line.indexOf(marker) + marker.length);
}
