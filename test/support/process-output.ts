import type { ChildProcess } from "node:child_process";

export interface ProcessOutput {
  code: number;
  stdout: string;
  stderr: string;
}

/** Collects a child's stdout and stderr until it exits. `onStderr` sees stderr so far. */
export function processOutput(
  child: ChildProcess,
  onStderr?: (text: string) => void,
): Promise<ProcessOutput> {
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr?.on("data", (chunk) => {
      stderr += chunk;
      onStderr?.(stderr);
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
