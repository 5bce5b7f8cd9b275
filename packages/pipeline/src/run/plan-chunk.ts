import {
  type GeneratorUsageSpec,
  InputError,
  type RunSpec,
  type Sample,
  type ScoreJob,
} from "@assay/core";
import type { ScorerRegistry } from "@assay/scorers";
import { createRouter } from "../routing/router.js";
import { planLine } from "./plan.js";
import { planPairJobs } from "./plan-pairs.js";
import type { PlannedLine } from "./store-lines.js";

/** The jobs that score one dataset line's samples; throws an `InputError` for a bad line. */
export type LinePlanner = (samples: Sample[]) => ScoreJob[];

export interface LinePlannerOptions {
  runId: string;
  spec: RunSpec;
  registry: ScorerRegistry;
  dataset: string;
  /** How the answers count their tokens: the spec's, or the joined batch outputs'. */
  generatorUsage: GeneratorUsageSpec | undefined;
}

export function linePlanner(options: LinePlannerOptions): LinePlanner {
  const { runId, spec, registry, dataset, generatorUsage } = options;
  const route = createRouter(spec);
  const timeoutMs = spec.job_timeout_s === undefined ? undefined : spec.job_timeout_s * 1000;
  return (samples) => {
    const jobs = planLine(runId, samples, route, registry, dataset, generatorUsage);
    const pairJobs = planPairJobs(runId, samples, spec, registry);
    // Most lines plan no pair jobs: no copy of the line's jobs then.
    const all = pairJobs.length === 0 ? jobs : [...jobs, ...pairJobs];
    // The spec's limit travels with each job, to whichever worker takes it.
    if (timeoutMs !== undefined) for (const job of all) job.timeoutMs = timeoutMs;
    return all;
  };
}

export interface PlannedChunk {
  planned: PlannedLine[];
  /** In line order. */
  refused: InputError[];
}

/**
 * Plans a chunk's lines. A line with a sample that cannot be routed or has bad scorers of
 * its own is refused as an input error; the others are planned.
 */
export function planChunk(lines: readonly Sample[][], planJobs: LinePlanner): PlannedChunk {
  const planned: PlannedLine[] = [];
  const refused: InputError[] = [];
  for (const samples of lines) {
    try {
      planned.push({ line: (samples[0] as Sample).line, samples, jobs: planJobs(samples) });
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      refused.push(error);
    }
  }
  return { planned, refused };
}
