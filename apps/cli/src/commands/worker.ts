import { type Pool, readEnv } from "@assay/core";
import { runWorker } from "@assay/pipeline";
import { type Command, InvalidArgumentError, Option } from "commander";
import {
  addDistributedOptions,
  type DistributedFlags,
} from "../distributed/distributed-options.js";
import { openQueues, openSharedStore } from "../distributed/open-services.js";
import { argsWithoutDevices, parseDeviceList, runOnePerDevice } from "../distributed/per-device.js";
import { CliExit, ExitCode } from "../exit-codes.js";
import { createMaskedLogger } from "../logger.js";
import { type DeviceName, deviceName, positiveInt } from "../options.js";
import { requireVerifier, scorerRegistry } from "../scorer-registry.js";
import { shutdownSignal } from "../shutdown-signal.js";

interface WorkerFlags extends DistributedFlags {
  pool: Pool;
  model?: string;
  device?: DeviceName;
  devices?: number[];
  threads?: number;
  concurrency?: number;
  metricsPort?: number;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
}

/** Jobs in flight per process when --concurrency is not given. */
const DEFAULT_CONCURRENCY: Record<Pool, number> = { cpu: 200, gpu: 32 };

export function registerWorker(program: Command): void {
  const command = program
    .command("worker")
    .description("take score jobs from Redis and store results in Postgres until SIGTERM/SIGINT")
    .addOption(
      new Option("--pool <pool>", "which pool's queue to serve")
        .choices(["cpu", "gpu"])
        .makeOptionMandatory(),
    )
    .option(
      "--model <dir|hub-id>",
      "GPU pool: the verifier model (as in the spec's args.model) whose queue to serve",
    )
    .option("--device <device>", "GPU pool: cpu or cuda:<id> (default cpu)", deviceName)
    .option(
      "--devices <ids>",
      "GPU pool: start one worker process per GPU, e.g. 0,1,2,3",
      parseDeviceIds,
    )
    .option("--threads <n>", "GPU pool: onnxruntime threads per process", positiveInt("--threads"))
    .option(
      "--concurrency <n>",
      "jobs in flight at once (default: cpu 200, gpu 32)",
      positiveInt("--concurrency"),
    )
    .option("--metrics-port <port>", "serve Prometheus metrics on this port", port)
    .option(
      "--lock-duration-ms <ms>",
      "how long a job stays claimed by a silent worker",
      positiveInt("--lock-duration-ms"),
    )
    .option(
      "--stalled-interval-ms <ms>",
      "how often to look for jobs of dead workers",
      positiveInt("--stalled-interval-ms"),
    );
  addDistributedOptions(command).action(async (flags: WorkerFlags) => {
    const log = createMaskedLogger(readEnv().ASSAY_LOG_LEVEL, `assay-worker-${flags.pool}`);
    if (flags.pool === "gpu" && flags.model === undefined) {
      throw new CliExit(
        ExitCode.usage,
        "--pool gpu needs --model <dir|hub-id>: the model whose queue to serve",
      );
    }
    if (flags.devices !== undefined) {
      const workerArgs = argsWithoutDevices(process.argv.slice(2));
      process.exitCode = await runOnePerDevice(flags.devices, workerArgs, log);
      return;
    }
    const registry = await registryFor(flags);
    // Listen first: a SIGTERM that arrives while connecting must still drain, not kill.
    const shutdown = shutdownSignal((name) => log.info({ signal: name }, "shutdown requested"));
    try {
      const store = await openSharedStore(flags);
      try {
        const transport = await openQueues(flags, {
          ...(flags.lockDurationMs !== undefined && { lockDurationMs: flags.lockDurationMs }),
          ...(flags.stalledIntervalMs !== undefined && {
            stalledIntervalMs: flags.stalledIntervalMs,
          }),
          onError: (error) => log.warn({ err: error }, "queue connection error (retrying)"),
        });
        try {
          await runWorker({
            pool: flags.pool,
            ...(flags.model !== undefined && { model: flags.model }),
            concurrency: flags.concurrency ?? DEFAULT_CONCURRENCY[flags.pool],
            store,
            transport,
            registry,
            log,
            ...(flags.metricsPort !== undefined && { metricsPort: flags.metricsPort }),
            signal: shutdown.signal,
          });
        } finally {
          await transport.close();
        }
      } finally {
        await Promise.all([store.close(), registry.close()]);
      }
    } finally {
      shutdown.dispose();
    }
  });
}

/**
 * The GPU pool loads its model before taking jobs, so a bad model folder fails at start
 * (exit 3) instead of failing every job.
 */
async function registryFor(flags: WorkerFlags) {
  if (flags.pool === "cpu") return scorerRegistry(false);
  const verifier = await requireVerifier();
  const model = await verifier.loadModel(flags.model as string, {
    ...(flags.device !== undefined && { device: flags.device }),
    ...(flags.threads !== undefined && { threads: flags.threads }),
  });
  return scorerRegistry({ models: [model] });
}

function parseDeviceIds(value: string): number[] {
  try {
    return parseDeviceList(value);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
}

function port(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65_535) {
    throw new InvalidArgumentError(
      `Expected --metrics-port to be a port from 0 to 65535, got "${value}".`,
    );
  }
  return parsed;
}
