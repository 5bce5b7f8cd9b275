import { AssayError, readEnv } from "@assay/core";
import { describeRedisFault } from "@assay/queue";
import type { ProduceFlags } from "../commands/produce.js";
import { CliExit, ExitCode } from "../exit-codes.js";
import { lostDatabase } from "../lost-connection.js";
import { storeTarget } from "../store-option.js";
import type { DistributedFlags } from "./distributed-options.js";
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
  // Already a deliberate message (a refused dataset, Redis unreachable at start).
  if (error instanceof CliExit || error instanceof AssayError) return error;
  if (error instanceof JobsGoneError) return jobsGone(error, runId, flags);
  const resume = `resume with: ${resumeCommand(dataset, runId, flags)}`;
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
export function jobsGone(error: JobsGoneError, runId: string, flags: DistributedFlags): CliExit {
  const words = ["assay retry", shellWord(runId), "--queue-prefix", shellWord(flags.queuePrefix)];
  if (flags.dbSchema !== undefined) words.push("--db-schema", shellWord(flags.dbSchema));
  return new CliExit(
    ExitCode.unavailable,
    `${error.message} (their jobs failed, or Redis lost them: flushed, or restarted without its data). ` +
      `Put them back with: ${words.join(" ")} --wait (with the same --db and --redis)`,
  );
}

/**
 * `assay produce` for this run with the flags that find it again. URLs are left out (they
 * may hold a password): the same --db and --redis, or the same environment, apply.
 */
function resumeCommand(dataset: string, runId: string, flags: ProduceFlags): string {
  const words = ["assay produce", shellWord(dataset), "--run-id", shellWord(runId)];
  if (flags.spec !== undefined) words.push("--spec", shellWord(flags.spec));
  words.push("--queue-prefix", shellWord(flags.queuePrefix));
  if (flags.dbSchema !== undefined) words.push("--db-schema", shellWord(flags.dbSchema));
  return `${words.join(" ")} (with the same --db and --redis)`;
}

function shellWord(word: string): string {
  return /^[\w./:@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
