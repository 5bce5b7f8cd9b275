import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { PATIENCE_MS } from "@assay/test-support/services";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  /** Assay workers only: where their Prometheus metrics are served. */
  metricsUrl?: string;
  output(): string;
}

export interface WorkerServices {
  redisUrl: string;
  prefix: string;
  databaseUrl: string;
  schema: string;
  concurrency: number;
  /** Node flags for the Assay workers, e.g. V8 heap settings to weigh CPU against RSS. */
  nodeFlags: string[];
}

/** `apps/worker-cpu` as built, as a deployment starts it; resolves once it listens. */
export function startAssayWorker(services: WorkerServices, metricsPort: number) {
  return startWorker(
    [
      ...services.nodeFlags,
      "apps/worker-cpu/dist/main.js",
      ...["--db", services.databaseUrl, "--db-schema", services.schema],
      ...["--redis", services.redisUrl, "--queue-prefix", services.prefix],
      ...["--concurrency", String(services.concurrency), "--metrics-port", String(metricsPort)],
    ],
    '"msg":"worker started"',
    `http://127.0.0.1:${metricsPort}/metrics`,
  );
}

/** The baseline worker (`raw-worker.ts`); resolves once it listens. */
export function startRawWorker(services: WorkerServices) {
  return startWorker(
    [
      ...["--conditions=@assay/source", "--import", "tsx"],
      fileURLToPath(new URL("./raw-worker.ts", import.meta.url)),
      ...[services.redisUrl, services.prefix, services.databaseUrl, services.schema],
      String(services.concurrency),
    ],
    "ready",
  );
}

async function startWorker(
  args: string[],
  readyText: string,
  metricsUrl?: string,
): Promise<WorkerProcess> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      // Keep the start and the last lines only: a long run logs little, but never hoard.
      output = (output + chunk.toString()).slice(-20_000);
      if (output.includes(readyText)) resolve();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code, signal) =>
      reject(new Error(`worker exited (${code ?? signal}) before it was ready:\n${output}`)),
    );
    setTimeout(
      () => reject(new Error(`worker not ready after ${PATIENCE_MS} ms:\n${output}`)),
      PATIENCE_MS,
    ).unref();
  });
  await ready;
  if (child.pid === undefined) throw new Error("worker has no pid");
  return {
    child,
    pid: child.pid,
    ...(metricsUrl !== undefined && { metricsUrl }),
    output: () => output,
  };
}

/** SIGTERM (finish in-flight jobs, flush), then wait for the exit. */
export async function stopWorker(worker: WorkerProcess): Promise<void> {
  if (worker.child.exitCode !== null || worker.child.signalCode !== null) return;
  const exited = once(worker.child, "exit");
  worker.child.kill("SIGTERM");
  await exited;
}

/** A counter or histogram sum from a Prometheus text page, summed over its label sets. */
export function metricSum(page: string, name: string): number {
  let sum = 0;
  for (const match of page.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? ([\\d.e+-]+)$`, "gm"))) {
    sum += Number(match[1]);
  }
  return sum;
}
