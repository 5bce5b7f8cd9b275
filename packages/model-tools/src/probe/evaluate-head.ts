import { type CalibrationSummary, calibrationSummary, type Sample } from "@assay/core";
import { createVerifierScorer, type VerifierModel } from "@assay/verifier";

export interface HeadEvaluation {
  model: string;
  head: "probe" | "distribution";
  /** Figures over the samples the head scored. */
  summary: CalibrationSummary;
  /** Samples the scorer left unscored, with its reason. */
  unscored: { sample: Sample; reason: string; message: string }[];
}

/** Scores labelled samples through the normal verifier scorer (the model's own head and prompts). */
export async function evaluateHead(
  model: VerifierModel,
  samples: readonly Sample[],
): Promise<HeadEvaluation> {
  const unlabelled = samples.find((s) => s.label === undefined);
  if (unlabelled !== undefined) {
    throw new RangeError(`sample ${unlabelled.id} (line ${unlabelled.line}) has no label`);
  }
  const scorer = createVerifierScorer(model, { model: model.name });
  const scores = await Promise.all(samples.map((sample) => scorer(sample, {})));
  const points = [];
  const unscored = [];
  for (const [i, score] of scores.entries()) {
    const sample = samples[i] as Sample;
    if (score.status === "scored")
      points.push({ score: score.value, label: sample.label === true });
    else unscored.push({ sample, reason: score.reason, message: score.message ?? "" });
  }
  return {
    model: model.name,
    head: model.config.head.type,
    summary: calibrationSummary(points),
    unscored,
  };
}
