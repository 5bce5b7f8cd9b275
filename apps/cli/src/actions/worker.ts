import { type Pool, readEnv, redactUrl } from "@assay/core";
import { RedisOutage, runWorker } from "@assay/pipeline/worker";
import type { DistributedFlags } from "../distributed/distributed-options.js";
import { openQueues, openSharedStore } from "../distributed/open-services.js";
import { argsWithoutDevices, runOnePerDevice } from "../distributed/per-device.js";
import { DEFAULT_WORKER_CONCURRENCY } from "../distributed/worker-concurrency.js";
import { CliExit, ExitCode } from "../exit-codes.js";
import { createMaskedLogger } from "../logger.js";
import type { DeviceName } from "../options.js";
import { downloadOption } from "../progress/download-view.js";
import { requireVerifier, scorerRegistry } from "../scorer-registry.js";
import { shutdownSignal } from "../shutdown-signal.js";
import { storeTarget } from "../store-option.js";
import type { VerifierFlags } from "../verifier-flags.js";
import { describeVerifierSettings, verifierTuning } from "../verifier-tuning.js";

export interface WorkerFlags extends DistributedFlags {
  pool: Pool;
  model?: string;
  device?: DeviceName;
  devices?: number[];
  threads?: number;
  concurrency?: number;
  /** Seconds a job may take (the spec's `job_timeout_s` wins). */
  jobTimeout: number;
  metricsPort?: number;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** The verifier flags typed on the command line (see `verifierFlagsGiven`). */
  verifier: VerifierFlags;
}

export async function workerAction(flags: WorkerFlags): Promise<void> {
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
  const { registry, model } = await registryFor(flags, log);
  // Listen first: a SIGTERM that arrives while connecting must still drain, not kill.
  const shutdown = shutdownSignal((name) => log.info({ signal: name }, "shutdown requested"));
  // One warning when Redis goes (every 30 s while it lasts), one line when it is back.
  const redisOutage = new RedisOutage({
    name: `Redis at ${redactUrl(flags.redis ?? readEnv().REDIS_URL)}`,
    log,
  });
  try {
    const store = await openSharedStore(flags);
    try {
      const transport = await openQueues(flags, {
        ...(flags.lockDurationMs !== undefined && { lockDurationMs: flags.lockDurationMs }),
        ...(flags.stalledIntervalMs !== undefined && {
          stalledIntervalMs: flags.stalledIntervalMs,
        }),
        onError: (error) => {
          if (!redisOutage.noticed(error)) log.warn({ err: error }, "queue error (retrying)");
        },
      });
      try {
        await runWorker({
          pool: flags.pool,
          ...(flags.model !== undefined && { model: flags.model }),
          concurrency: flags.concurrency ?? DEFAULT_WORKER_CONCURRENCY[flags.pool],
          jobTimeoutMs: flags.jobTimeout * 1000,
          store,
          transport,
          registry,
          log,
          ...(model !== undefined && { verifierTotals: () => model.tokenTotals() }),
          ...(flags.metricsPort !== undefined && { metricsPort: flags.metricsPort }),
          signal: shutdown.signal,
          database: `Postgres at ${redactUrl(storeTarget(flags.db).databaseUrl ?? "")}`,
          redisOutage,
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
}

/**
 * The GPU pool loads its model before taking jobs, so a bad model folder fails at start
 * (exit 3) instead of failing every job.
 */
async function registryFor(flags: WorkerFlags, log: ReturnType<typeof createMaskedLogger>) {
  if (flags.pool === "cpu") return { registry: await scorerRegistry(false), model: undefined };
  const verifier = await requireVerifier();
  const model = await verifier.loadModel(flags.model as string, {
    ...(flags.device !== undefined && { device: flags.device }),
    ...(flags.threads !== undefined && { threads: flags.threads }),
    ...verifierTuning(flags.verifier),
    ...downloadOption(),
  });
  log.info(
    {
      model: model.name,
      maxBatchTokens: model.batchOptions.maxBatchTokens,
      maxBatchRows: model.batchOptions.maxBatchRows,
      prefixReuse: model.reusesPrefixes,
    },
    describeVerifierSettings(model),
  );
  return { registry: await scorerRegistry({ models: [model] }), model };
}
