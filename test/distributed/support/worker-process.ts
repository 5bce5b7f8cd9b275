import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { builtApp } from "@assay/test-support/built-entry";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export interface WorkerProcess {
  child: ChildProcess;
  /** Everything the worker logged so far (pino JSON lines). */
  logs(): string;
  /** Resolves with the exit code (or the signal name) when the process ends. */
  exited: Promise<number | string>;
}

export interface WorkerProcessOptions {
  redisUrl: string;
  databaseUrl: string;
  schema: string;
  prefix: string;
  extraArgs?: string[];
}

/**
 * Starts the built `apps/worker-cpu`, as a deployment starts it, and resolves once it has
 * logged "worker started". The build is checked against the sources first (`builtApp`).
 */
export function startCpuWorker(options: WorkerProcessOptions): Promise<WorkerProcess> {
  return startWorker(builtApp("apps/worker-cpu"), options);
}

/** Starts `apps/worker-gpu` serving `model` (spelled as given), as `startCpuWorker` does. */
export function startGpuWorker(
  options: WorkerProcessOptions & { model: string },
): Promise<WorkerProcess> {
  return startWorker(builtApp("apps/worker-gpu"), {
    ...options,
    extraArgs: ["--model", options.model, ...(options.extraArgs ?? [])],
  });
}

async function startWorker(main: string, options: WorkerProcessOptions): Promise<WorkerProcess> {
  const args = [
    main,
    "--db",
    options.databaseUrl,
    "--db-schema",
    options.schema,
    "--redis",
    options.redisUrl,
    "--queue-prefix",
    options.prefix,
    ...(options.extraArgs ?? []),
  ];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const started = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes('"msg":"worker started"')) resolve();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code, signal) =>
      reject(new Error(`worker exited (${code ?? signal}) before starting:\n${output}`)),
    );
  });
  const exited = new Promise<number | string>((resolve) => {
    child.once("exit", (code, signal) => resolve(code ?? signal ?? -1));
  });
  await started;
  return { child, logs: () => output, exited };
}
