import {
  type GeneratorUsageSpec,
  InputError,
  type Sample,
  type ScoreJob,
  type ScorerRef,
  SpecError,
  scorerKey,
} from "@assay/core";
import type { ScorerRegistry } from "@assay/scorers";
import type { Route } from "../routing/router.js";
import { toStoredGeneratorUsage } from "./generator-usage.js";

/**
 * Routes and plans every sample of one dataset line. A line is accepted or refused whole:
 * the first sample that cannot be routed or planned throws an InputError for the line, so
 * a task never loses some of its candidates. Generator usage is brought to the store's
 * convention here (see `toStoredGeneratorUsage`).
 */
export function planLine(
  runId: string,
  samples: readonly Sample[],
  route: (sample: Sample) => Route | undefined,
  registry: ScorerRegistry,
  file: string,
  generatorUsage?: GeneratorUsageSpec,
): ScoreJob[] {
  const jobs = lineJobs;
  jobs.length = 0;
  for (const sample of samples) {
    const target = route(sample);
    if (target === undefined) throw unrouted(file, sample);
    toStoredGeneratorUsage(sample, generatorUsage, file);
    addSampleJobs(jobs, runId, sample, target, registry, file);
  }
  // A copy of exactly its length: a line's jobs wait for the line to be stored and
  // enqueued, long enough to outlive a young collection, and an array grown by `push`
  // holds room for 16 (~0.15 KB per one-job line kept in the old generation).
  return jobs.slice();
}

/** Where `planLine` collects a line's jobs; planning is synchronous, so one serves all. */
const lineJobs: ScoreJob[] = [];

function unrouted(file: string, sample: Sample): InputError {
  return new InputError({
    file,
    line: sample.line,
    field: "",
    message:
      "no routing rule matches this sample and the spec has no `default`; add a rule or a default",
  });
}

/**
 * Turns a routed sample into jobs, one per scorer. Per-sample scorers are checked here,
 * since a spec check cannot see them; a bad one is an input error on the sample's line.
 */
export function planSample(
  runId: string,
  sample: Sample,
  route: Route,
  registry: ScorerRegistry,
  file: string,
): ScoreJob[] {
  const jobs: ScoreJob[] = [];
  addSampleJobs(jobs, runId, sample, route, registry, file);
  return jobs;
}

/**
 * `planSample`, adding the jobs to a line's list: an array per sample (and one more for
 * the keys seen) was most of what planning allocated.
 */
function addSampleJobs(
  jobs: ScoreJob[],
  runId: string,
  sample: Sample,
  route: Route,
  registry: ScorerRegistry,
  file: string,
): void {
  const first = jobs.length;
  for (let index = 0; index < route.scorers.length; index += 1) {
    const ref = route.scorers[index] as ScorerRef;
    if (sample.scorers !== undefined) checkSampleScorer(ref, index, sample, registry, file);
    const scorer = scorerKey(ref);
    // The sample's keys so far are those of its jobs already added: a sample has a few.
    for (let earlier = first; earlier < jobs.length; earlier += 1) {
      if (scorerKey((jobs[earlier] as ScoreJob).scorer) !== scorer) continue;
      throw new InputError({
        file,
        line: sample.line,
        field: `scorers[${index}]`,
        message: `scorer "${scorer}" appears twice for one sample; give one of them a \`key\``,
      });
    }
    jobs.push({ runId, pool: registry.poolOf(ref), rule: route.rule, scorer: ref, sample });
  }
}

function checkSampleScorer(
  ref: ScorerRef,
  index: number,
  sample: Sample,
  registry: ScorerRegistry,
  file: string,
): void {
  try {
    registry.validate(ref, `scorers[${index}]`);
  } catch (error) {
    if (!(error instanceof SpecError)) throw error;
    throw new InputError({
      file,
      line: sample.line,
      field: `scorers[${index}]`,
      message: error.message.replace(/^.*?scorers\[\d+\]: /, ""),
    });
  }
}
