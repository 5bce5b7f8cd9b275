import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { builtCli, cliArgs } from "@assay/test-support/built-entry";
import { type ProcessOutput, processOutput } from "@assay/test-support/process-output";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export interface AssayProcess {
  child: ChildProcess;
  /** stderr so far. */
  stderr(): string;
  /** Resolves with the exit code and everything printed once the process ends. */
  done: Promise<ProcessOutput>;
}

/** Starts the built `assay` command in a child process, as a user would. */
export function startAssay(args: string[], env: NodeJS.ProcessEnv = {}): AssayProcess {
  return startNode(cliArgs(args), env);
}

/**
 * Starts the built `assay` command (`apps/cli/dist/main.js`) exactly as installed users run
 * it, with V8's default compiler tiers (`startAssay` keeps the embedded store's WebAssembly
 * on the baseline tier): for tests whose processes race or are timed.
 */
export function startBuiltAssay(args: string[], env: NodeJS.ProcessEnv = {}): AssayProcess {
  return startNode([builtCli(), ...args], env);
}

function startNode(args: string[], env: NodeJS.ProcessEnv): AssayProcess {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: undefined, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  const done = processOutput(child, (text) => {
    stderr = text;
  });
  return { child, stderr: () => stderr, done };
}
