import type { z } from "zod";
import type { Pool } from "./job.js";
import type { Sample } from "./sample.js";
import type { Score } from "./score.js";

export interface ScoreContext {
  /** Aborted when the worker shuts down or the job's time budget runs out. */
  signal?: AbortSignal;
}

/**
 * The one shape of every scorer, deterministic or model-based. A scorer never throws for
 * a bad answer: it returns `unscored` with a reason. A deterministic scorer returns the
 * score itself: a promise per job (and an await of it) is a share of what scoring a cheap
 * job costs. A model-based one returns a promise. Callers `await` either.
 */
export type Scorer = (sample: Sample, context: ScoreContext) => Score | Promise<Score>;

/** How to build a scorer from `{ name, args }`. `args` is validated when the spec loads. */
export interface ScorerDefinition<Args = unknown> {
  name: string;
  pool: Pool;
  /** One line for `--help` and the scorer table in docs/cli.md. */
  description: string;
  args: z.ZodType<Args, unknown>;
  create(args: Args): Scorer;
  /**
   * Checks what `args` need beyond their schema against what they name (a model's
   * tokenizer, head and prompt variants), once before a run enqueues anything, so a spec
   * that cannot work is refused instead of leaving every sample unscored. Throws a
   * SpecError naming the argument and how to fix it; a ConfigError when what the args name
   * cannot be reached from this machine (a model folder that only the GPU workers have).
   * Absent: the schema says everything.
   */
  check?(args: Args): Promise<void>;
  /** Releases what the scorers hold (model sessions, threads); called once at shutdown. */
  close?(): Promise<void>;
}
