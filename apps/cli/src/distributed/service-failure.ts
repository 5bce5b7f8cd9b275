import { AssayError, readEnv } from "@assay/core";
import { describeRedisFault } from "@assay/queue";
import type { ProduceFlags } from "../actions/produce.js";
import { CliExit, ExitCode } from "../exit-codes.js";
import { lostDatabase } from "../lost-connection.js";
import { resumeWords } from "../resume-words.js";
import { storeTarget } from "../store-option.js";
import type { DistributedFlags } from "./distributed-options.js";
import { pasteableCommand } from "./pasteable-command.js";
import { JobsGoneError } from "./wait-for-run.js";

/**
 * The error `assay produce` ends with when Redis or Postgres failed under it (exit 5):
 * the cause, and the command that resumes. A resumed produce enqueues what is not stored
 * and adds nothing twice (job ids are result keys). Any other error is returned as it is.
 */
export function produceFailure(
  error: unknown,
  dataset: string,
  runId: string,
  flags: ProduceFlags,
): unknown {
  if (error instanceof JobsGoneError) return jobsGone(error, runId, flags);
  return serviceFailure(error, flags, `resume with: ${produceCommand(dataset, runId, flags)}`);
}

/** The same for `assay retry`: rerunning it puts back what is still missing. */
export function retryFailure(error: unknown, runId: string, flags: DistributedFlags): unknown {
  if (error instanceof JobsGoneError) return jobsGone(error, runId, flags);
  return serviceFailure(error, flags, `rerun: ${retryCommand(runId, flags)}`);
}

/**
 * Exit 5 naming the failed service and the cause, then `resume`, when `error` is Redis
 * refusing writes (out of memory, a read-only replica) or a lost connection to Redis or
 * Postgres. Deliberate messages (a refused dataset, Redis unreachable at start) and any
 * other error are returned as they are.
 */
function serviceFailure(error: unknown, flags: DistributedFlags, resume: string): unknown {
  if (error instanceof CliExit || error instanceof AssayError) return error;
  const redisFault = describeRedisFault(error, flags.redis ?? readEnv().REDIS_URL);
  if (redisFault !== undefined) {
    return new CliExit(ExitCode.unavailable, `${redisFault}. Once it is fixed, ${resume}`);
  }
  return lostDatabase(error, storeTarget(flags.db).databaseUrl, resume);
}

/**
 * The wait of `produce --wait` or `retry --wait` found results that can no longer arrive:
 * their jobs failed, or Redis lost them (flushed, restarted without its data). `assay
 * retry` puts both back.
 */
function jobsGone(error: JobsGoneError, runId: string, flags: DistributedFlags): CliExit {
  return new CliExit(
    ExitCode.unavailable,
    `${error.message} (their jobs failed, or Redis lost them: flushed, or restarted without its data). ` +
      `Put them back with: ${retryCommand(runId, flags, ["--wait"])}`,
  );
}

// Commands are written with the flags that find the run again (see pasteableCommand).

/**
 * The `assay produce` that resumes the run. Its files are absolute paths, so that it works
 * pasted in any folder (the run records the dataset's absolute path too).
 */
export function produceCommand(dataset: string, runId: string, flags: ProduceFlags): string {
  return pasteableCommand(["produce", ...resumeWords(dataset, runId, flags)], flags);
}

export function retryCommand(runId: string, flags: DistributedFlags, extra: string[] = []): string {
  return pasteableCommand(["retry", runId], flags, extra);
}
