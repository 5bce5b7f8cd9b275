import { spawn } from "node:child_process";
import { cliArgs } from "@assay/test-support/built-entry";
import { quote } from "shell-quote";

export interface TerminalRun {
  code: number;
  /** Everything the terminal showed (stderr; stdout is sent to /dev/null), as written. */
  screen: string;
}

/**
 * Runs the built `assay` on a pseudo-terminal (util-linux `script`), as an operator at a
 * terminal does: stderr is a TTY, so progress is drawn as a bar. `onScreen` sees what was
 * shown so far and may type into the terminal (`"\x03"` is Ctrl-C).
 */
export function runInTerminal(
  args: string[],
  options: { cwd: string; onScreen?: (screen: string, type: (keys: string) => void) => void },
): Promise<TerminalRun> {
  // `exec`: the CLI alone gets the terminal's Ctrl-C, as under an interactive shell, which
  // runs a command in a process group of its own. A `sh -c` left waiting in the group gets
  // the SIGINT too, and may end the session with 130 after the CLI exited 0.
  const command = `exec ${quote([process.execPath, ...cliArgs(args)])} >/dev/null`;
  const child = spawn(
    "script",
    ["--quiet", "--flush", "--return", "--command", command, "/dev/null"],
    {
      cwd: options.cwd,
      env: { ...process.env, DATABASE_URL: undefined },
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  let screen = "";
  const type = (keys: string): void => {
    child.stdin.write(keys);
  };
  child.stdout.on("data", (chunk) => {
    screen += chunk;
    options.onScreen?.(screen, type);
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, screen }));
  });
}

/** The bar's frames as drawn: each redraw starts at the line's first column. */
export function barFrames(screen: string): string[] {
  return screen
    .split("\x1b[1G")
    .slice(1)
    .map((frame) => frame.split("\x1b[0K")[0] as string);
}
