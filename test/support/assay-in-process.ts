import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { runCli } from "@assay/cli";
import type { ProcessOutput } from "@assay/test-support/process-output";

export interface InProcessOptions {
  /** Working directory of the command; default: the repository's root, as `runAssay`'s. */
  cwd?: string;
  /** Variables set (or, when undefined, unset) for the command; `DATABASE_URL` is unset unless given. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs an `assay` command in this test process through `runCli`, the entry the built
 * command calls, and returns what a child process would have given: its exit code and what
 * it wrote to stdout and stderr (not a terminal, as in a child with piped output).
 *
 * A command costs a fraction of a process of its own: no Node start, no module loading,
 * and the embedded store's WebAssembly compiled once per test process (about 1.3 s of
 * CPU saved per command). What only a process shows stays with `runAssay`: signals,
 * standard input, two commands at once, the exit of a real process, the built files.
 *
 * Commands run one at a time, as each swaps the process-wide stdout, stderr, environment,
 * working directory and exit code, and restores them after. A command that leaves a
 * SIGINT or SIGTERM handler behind fails here: in a process of its own the leak would go
 * unseen, and here it would change what Ctrl-C does to every later command. ('exit'
 * listeners are not counted: a library registers one once per process, pino's flush of
 * its log stream, and keeps it.)
 */
export function assayInProcess(
  args: string[],
  options: InProcessOptions = {},
): Promise<ProcessOutput> {
  const turn = queue.then(() => runInProcess(args, options));
  queue = turn.catch(() => {});
  return turn;
}

let queue: Promise<unknown> = Promise.resolve();

const REPO = fileURLToPath(new URL("../../", import.meta.url));

async function runInProcess(args: string[], options: InProcessOptions): Promise<ProcessOutput> {
  const stdout = new CapturedOutput();
  const stderr = new CapturedOutput();
  const restoreStreams = [swapStream("stdout", stdout), swapStream("stderr", stderr)];
  const restoreEnv = setEnv({ DATABASE_URL: undefined, ...options.env });
  const cwd = process.cwd();
  const listenersBefore = processListeners();
  const exitCode = process.exitCode;
  process.exitCode = undefined;
  // A command that ends its process would end the test runner's: it fails instead.
  const exit = process.exit;
  process.exit = ((code?: number) => {
    throw new Error(`assay ${args.join(" ")} called process.exit(${code ?? ""})`);
  }) as typeof process.exit;
  try {
    process.chdir(options.cwd ?? REPO);
    const code = await runCli(args);
    const leaked = changedListeners(listenersBefore, processListeners());
    if (leaked !== undefined) {
      throw new Error(`assay ${args.join(" ")} left ${leaked} handlers on the process behind`);
    }
    return { code, stdout: stdout.text(), stderr: stderr.text() };
  } finally {
    process.exit = exit;
    process.exitCode = exitCode;
    process.chdir(cwd);
    restoreEnv();
    for (const restore of restoreStreams) restore();
  }
}

/** A non-terminal stream that keeps what is written to it, as a pipe to a parent would. */
class CapturedOutput extends Writable {
  readonly #chunks: Buffer[] = [];
  readonly isTTY = false;

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.#chunks.push(chunk);
    done();
  }

  text(): string {
    return Buffer.concat(this.#chunks).toString("utf8");
  }
}

/**
 * Puts `stream` in place of `process[name]` (a configurable getter in Node) and returns
 * what puts the original back. A pipeline that ends the stream ends the capture, never the
 * test process's own stdout.
 */
function swapStream(name: "stdout" | "stderr", stream: Writable): () => void {
  const original = Object.getOwnPropertyDescriptor(process, name);
  if (original === undefined) throw new Error(`process.${name} has no property to swap`);
  Object.defineProperty(process, name, { configurable: true, enumerable: true, get: () => stream });
  return () => Object.defineProperty(process, name, original);
}

function setEnv(changes: NodeJS.ProcessEnv): () => void {
  const before = new Map(Object.keys(changes).map((key) => [key, process.env[key]]));
  for (const [key, value] of Object.entries(changes)) assign(key, value);
  return () => {
    for (const [key, value] of before) assign(key, value);
  };
}

function assign(key: string, value: string | undefined): void {
  if (value === undefined) delete process.env[key];
  else process.env[key] = value;
}

const WATCHED_EVENTS = ["SIGINT", "SIGTERM"] as const;

function processListeners(): number[] {
  return WATCHED_EVENTS.map((event) => process.listenerCount(event));
}

function changedListeners(before: number[], after: number[]): string | undefined {
  const grown = WATCHED_EVENTS.filter((_, index) => (after[index] ?? 0) > (before[index] ?? 0));
  return grown.length === 0 ? undefined : grown.join(", ");
}
