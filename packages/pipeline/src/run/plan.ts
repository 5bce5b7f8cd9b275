import {
  InputError,
  type Sample,
  type ScoreJob,
  type ScorerRef,
  SpecError,
  scorerKey,
} from "@assay/core";
import type { ScorerRegistry } from "@assay/scorers";
import { resultKeyString } from "@assay/store";
import type { Route } from "../routing/router.js";

export interface PlannedSample {
  jobs: ScoreJob[];
  /** Result rows the sample needs in total, stored or not. */
  planned: number;
}

/**
 * Turns a routed sample into jobs, one per scorer, leaving out results already stored
 * (that is how a rerun resumes). Per-sample scorers are checked here, since a spec check
 * cannot see them; a bad one is an input error on the sample's line.
 */
export function planSample(
  runId: string,
  sample: Sample,
  route: Route,
  stored: ReadonlySet<string>,
  registry: ScorerRegistry,
  file: string,
): PlannedSample {
  const jobs: ScoreJob[] = [];
  const seen = new Set<string>();
  route.scorers.forEach((ref, index) => {
    if (sample.scorers !== undefined) checkSampleScorer(ref, index, sample, registry, file);
    const scorer = scorerKey(ref);
    if (seen.has(scorer)) {
      throw new InputError({
        file,
        line: sample.line,
        field: `scorers[${index}]`,
        message: `scorer "${scorer}" appears twice for one sample; give one of them a \`key\``,
      });
    }
    seen.add(scorer);
    const key = { sampleId: sample.id, scorer, criterion: "", repetition: 0 };
    if (stored.has(resultKeyString(key))) return;
    jobs.push({ runId, pool: registry.poolOf(ref), rule: route.rule, scorer: ref, sample });
  });
  return { jobs, planned: route.scorers.length };
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
