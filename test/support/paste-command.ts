import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ProcessOutput, processOutput } from "@assay/test-support/process-output";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Runs a command Assay printed exactly as a user pasting it would: in a shell, with `assay`
 * the CLI from source, and DATABASE_URL unset as in `startAssay`.
 */
export async function pasteCommand(command: string): Promise<ProcessOutput> {
  // tsx by its path: a command pasted after a `cd` elsewhere still finds it.
  const tsx = join(ROOT, "node_modules/tsx/dist/esm/index.mjs");
  const assay = `node --conditions=@assay/source --import ${tsx} ${join(ROOT, "apps/cli/src/main.ts")}`;
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
