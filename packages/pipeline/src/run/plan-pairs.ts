import type { RunSpec, Sample, ScoreJob, Unanswered } from "@assay/core";
import type { ScorerRegistry } from "@assay/scorers";
import { pairPrompts } from "@assay/selection";

/** The routing rule recorded for a pairwise judge's jobs. */
export const PAIR_RULE = "selection";

/**
 * The pairwise judge's jobs for one line's candidates (one task): both orders of every
 * pair of the seeded pivot tournament that selection will run. Each job's sample carries
 * the two answers as `answer_a` and `answer_b`; its result is stored under the pair's own
 * sample id, where selection finds it. A line with one answer, or a spec without a judge,
 * plans none. A pair with a joined candidate that gave no answer is planned unanswered.
 */
export function planPairJobs(
  runId: string,
  samples: readonly Sample[],
  spec: RunSpec,
  registry: ScorerRegistry,
): ScoreJob[] {
  const selection = spec.selection;
  const first = samples[0];
  if (selection?.judge === undefined || first === undefined || samples.length < 2) return [];
  const judge = selection.judge;
  const pool = registry.poolOf(judge);
  const byIndex = new Map(samples.map((s) => [s.candidateIndex, s]));
  const prompts = pairPrompts(first.taskId, [...byIndex.keys()], selection);
  return prompts.map((prompt) => ({
    runId,
    pool,
    rule: PAIR_RULE,
    scorer: judge,
    sample: pairSample(first, prompt.sampleId, byIndex, prompt.first, prompt.second),
  }));
}

function pairSample(
  task: Sample,
  id: string,
  byIndex: Map<number, Sample>,
  first: number,
  second: number,
): Sample {
  const pair: Sample = {
    id,
    taskId: task.taskId,
    candidateIndex: first,
    question: task.question,
    answer: "",
    target: task.target,
    metadata: {
      ...task.metadata,
      answer_a: byIndex.get(first)?.answer ?? "",
      answer_b: byIndex.get(second)?.answer ?? "",
    },
    line: task.line,
  };
  const unanswered = pairUnanswered(byIndex, first, second);
  if (unanswered !== undefined) pair.unanswered = unanswered;
  return pair;
}

/**
 * A pair with a candidate that gave no text (a refusal, only tool calls, cut off) is no
 * comparison: judged, its "" would lose to any answer, or win against another "". The
 * pair's result is stored unscored with the candidate's reason (`scoring` in
 * score-handler.ts never calls the judge), and selection leaves the pair out.
 */
function pairUnanswered(
  byIndex: Map<number, Sample>,
  first: number,
  second: number,
): Unanswered | undefined {
  for (const index of [first, second]) {
    const unanswered = byIndex.get(index)?.unanswered;
    if (unanswered !== undefined) {
      return {
        reason: unanswered.reason,
        message: `candidate ${index} gave no answer to judge (${unanswered.reason}): ${unanswered.message}`,
      };
    }
  }
  return undefined;
}
