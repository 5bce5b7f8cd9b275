import { type CalibrationSummary, calibrationSummary, type Sample } from "@assay/core";
import type { VerifierModel } from "@assay/verifier";
import { type CrossValidateOptions, fitProbeVector, type LambdaResult } from "./cross-validate.js";
import { collectHiddenStates } from "./hidden-states.js";

export interface FittedProbe {
  /** Graph output the probe reads. */
  output: string;
  probe: number[];
  bias: number;
  /** What `probe fit` prints and writes to probe-fit.json. */
  report: ProbeFitReport;
  /** Samples left out because their prompt could not be built or fitted. */
  skipped: { sample: Sample; message: string }[];
}

export interface ProbeFitReport {
  model: string;
  output: string;
  hiddenSize: number;
  samples: number;
  positives: number;
  skipped: number;
  lambda: number;
  folds: number;
  seed: number;
  path: LambdaResult[];
  /** The final fit on every sample reached the solver's tolerance. */
  converged: boolean;
  /** Out-of-fold predictions at the chosen λ: figures on samples the probe did not see. */
  heldOut: CalibrationSummary;
}

/**
 * Runs `samples` (each with a label) through the model and fits a logistic probe on the
 * hidden state at the score position, λ chosen by seeded k-fold cross-validation.
 * Throws a RangeError when fewer than 2 samples of either label could be run.
 */
export async function fitProbe(
  model: VerifierModel,
  samples: readonly Sample[],
  options: CrossValidateOptions = {},
): Promise<FittedProbe> {
  const unlabelled = samples.find((s) => s.label === undefined);
  if (unlabelled !== undefined) {
    throw new RangeError(`sample ${unlabelled.id} (line ${unlabelled.line}) has no label`);
  }
  const states = await collectHiddenStates(model, samples);
  const labels = states.samples.map((s) => s.label === true);
  const seed = options.seed ?? 1;
  const fit = fitProbeVector({ rows: states.rows, labels }, { ...options, seed });
  return {
    output: states.output,
    probe: Array.from(fit.probe),
    bias: fit.bias,
    skipped: states.skipped,
    report: {
      model: model.name,
      output: states.output,
      hiddenSize: fit.probe.length,
      samples: states.rows.length,
      positives: labels.filter(Boolean).length,
      skipped: states.skipped.length,
      lambda: fit.lambda,
      folds: fit.folds,
      seed,
      path: fit.path,
      converged: fit.converged,
      heldOut: calibrationSummary(fit.heldOut),
    },
  };
}
