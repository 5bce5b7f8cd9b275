import { type LabelledScore, seededRandom } from "@assay/core";
import {
  type Dataset,
  fitLogistic,
  type LogisticFit,
  type LogisticOptions,
  predict,
  rawProbe,
  standardize,
  standardizer,
} from "./logistic-regression.js";

/** Regularisation strengths tried by default, strongest first (warm starts follow the path). */
export const DEFAULT_LAMBDAS = [10, 3, 1, 0.3, 0.1, 0.03, 0.01, 0.003, 0.001, 3e-4, 1e-4];

export interface CrossValidateOptions extends Pick<LogisticOptions, "tolerance" | "maxIterations"> {
  /** Folds k. Default 5 (fewer when a class has fewer samples). */
  folds?: number;
  /** Seed of the fold assignment. Default 1. */
  seed?: number;
  /** Candidate λ. Default DEFAULT_LAMBDAS. */
  lambdas?: readonly number[];
}

export interface LambdaResult {
  lambda: number;
  /** Mean held-out log-loss over the folds. */
  logLoss: number;
}

export interface ProbeFit {
  /** Probe on the raw hidden state (length = width of the rows). */
  probe: Float64Array;
  bias: number;
  lambda: number;
  folds: number;
  /** Every λ tried with its held-out log-loss. */
  path: LambdaResult[];
  /** Out-of-fold predictions at the chosen λ, in the order of the rows. */
  heldOut: LabelledScore[];
  /** The final fit on every row reached the tolerance. */
  converged: boolean;
}

/**
 * Fold of each row: rows shuffled with a seeded generator within each class, then dealt
 * round-robin, so every fold gets its share of both classes. Same labels + seed → same folds.
 */
export function stratifiedFolds(labels: readonly boolean[], folds: number, seed: number): number[] {
  const random = seededRandom(seed);
  const fold = new Array<number>(labels.length).fill(0);
  for (const cls of [true, false]) {
    const indices = labels.flatMap((label, i) => (label === cls ? [i] : []));
    for (let i = indices.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [indices[i], indices[j]] = [indices[j] ?? 0, indices[i] ?? 0];
    }
    indices.forEach((row, k) => {
      fold[row] = k % folds;
    });
  }
  return fold;
}

/**
 * Chooses λ by k-fold cross-validation (lowest mean held-out log-loss), then fits on every
 * row. Each fold is standardised with its own training rows only, so nothing of a held-out
 * row leaks into its prediction. Needs both classes; k is capped by the smaller class.
 */
export function fitProbeVector(data: Dataset, options: CrossValidateOptions = {}): ProbeFit {
  const positives = data.labels.filter(Boolean).length;
  const smaller = Math.min(positives, data.labels.length - positives);
  if (smaller < 2) {
    throw new RangeError(
      `Expected at least 2 samples of each label to cross-validate, got ${positives} true and ${data.labels.length - positives} false`,
    );
  }
  const folds = Math.min(options.folds ?? 5, smaller);
  const lambdas = [...(options.lambdas ?? DEFAULT_LAMBDAS)].sort((a, b) => b - a);
  const solver = {
    tolerance: options.tolerance ?? 1e-6,
    maxIterations: options.maxIterations ?? 5000,
  };
  const assignment = stratifiedFolds(data.labels, folds, options.seed ?? 1);
  const losses = lambdas.map(() => 0);
  const predictions = lambdas.map(() => new Array<number>(data.rows.length).fill(0));
  for (let f = 0; f < folds; f++) {
    const train = split(data, assignment, (k) => k !== f);
    const s = standardizer(train.rows);
    const trainData = { rows: train.rows.map((r) => standardize(s, r)), labels: train.labels };
    let start: LogisticFit | undefined;
    lambdas.forEach((lambda, l) => {
      start = fitLogistic(trainData, lambda, { ...solver, ...(start && { start }) });
      const fitted = start;
      let loss = 0;
      let count = 0;
      assignment.forEach((k, i) => {
        if (k !== f) return;
        const p = predict(
          fitted.weights,
          fitted.bias,
          standardize(s, data.rows[i] ?? new Float64Array()),
        );
        (predictions[l] as number[])[i] = p;
        loss += logLoss(p, data.labels[i] === true);
        count += 1;
      });
      losses[l] = (losses[l] ?? 0) + loss / count / folds;
    });
  }
  let best = 0;
  losses.forEach((loss, l) => {
    if (loss < (losses[best] ?? Number.POSITIVE_INFINITY)) best = l;
  });
  const lambda = lambdas[best] ?? 1;
  const s = standardizer(data.rows);
  const all = { rows: data.rows.map((r) => standardize(s, r)), labels: data.labels };
  const final = fitLogistic(all, lambda, solver);
  const { probe, bias } = rawProbe(s, final);
  return {
    probe,
    bias,
    lambda,
    folds,
    path: lambdas.map((l, i) => ({ lambda: l, logLoss: losses[i] ?? Number.NaN })),
    heldOut: (predictions[best] ?? []).map((score, i) => ({
      score,
      label: data.labels[i] === true,
    })),
    converged: final.converged,
  };
}

function split(
  data: Dataset,
  assignment: readonly number[],
  keep: (fold: number) => boolean,
): Dataset {
  const rows: Float64Array[] = [];
  const labels: boolean[] = [];
  assignment.forEach((fold, i) => {
    if (!keep(fold)) return;
    rows.push(data.rows[i] ?? new Float64Array());
    labels.push(data.labels[i] === true);
  });
  return { rows, labels };
}

function logLoss(p: number, label: boolean): number {
  const clamped = Math.min(1 - 1e-15, Math.max(1e-15, p));
  return -Math.log(label ? clamped : 1 - clamped);
}
