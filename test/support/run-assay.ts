import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { cliArgs } from "@assay/test-support/built-entry";
import { type ProcessOutput, processOutput } from "@assay/test-support/process-output";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

export type AssayResult = ProcessOutput;

/** Runs the built `assay` command in a child process, as a user would. */
export function runAssay(
  args: string[],
  options: {
    cwd?: string;
    env?: NodeJS.ProcessEnv;
    /** Sees stderr so far on each chunk, e.g. to signal the child at a given point. */
    onStderr?: (text: string, child: ChildProcess) => void;
    /** Written to the command's standard input, then closed; default: no standard input. */
    stdin?: Uint8Array;
  } = {},
): Promise<AssayResult> {
  const child = spawn(process.execPath, cliArgs(args), {
    cwd: options.cwd ?? REPO,
    env: { ...process.env, DATABASE_URL: undefined, ...options.env },
    stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
  });
  // A command may stop before it has read all of its input (a full disk, a refused line):
  // the rest of the write then fails with EPIPE, which is the command's outcome, not ours.
  child.stdin?.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
  });
  child.stdin?.end(options.stdin);
  return processOutput(child, (text) => options.onStderr?.(text, child));
}

export const REPO_ROOT = REPO;
