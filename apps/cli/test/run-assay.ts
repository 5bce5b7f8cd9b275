import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const MAIN = `${REPO}apps/cli/src/main.ts`;
const TSX = `${REPO}node_modules/tsx/dist/esm/index.mjs`;

export interface AssayResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the `assay` command from source in a child process, as a user would. */
export function runAssay(
  args: string[],
  options: {
    cwd?: string;
    env?: NodeJS.ProcessEnv;
    /** Sees stderr so far on each chunk, e.g. to signal the child at a given point. */
    onStderr?: (text: string, child: ChildProcess) => void;
  } = {},
): Promise<AssayResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--conditions=@assay/source", "--import", TSX, MAIN, ...args],
      {
        cwd: options.cwd ?? REPO,
        env: { ...process.env, DATABASE_URL: undefined, ...options.env },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      options.onStderr?.(stderr, child);
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

export const REPO_ROOT = REPO;
