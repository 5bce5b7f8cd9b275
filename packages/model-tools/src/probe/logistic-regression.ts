import { sigmoid } from "@assay/core";

/**
 * L2-regularised logistic regression, written here rather than taken from a package: the
 * maintained JS one (ml-logistic-regression) runs fixed-step gradient descent with no
 * penalty and no convergence test, and a probe over a 4,096-wide hidden state needs both.
 *
 * Minimises (1/n) Σ log(1 + exp(−s_i (w·x_i + b))) + (λ/2)‖w‖² (s_i = ±1, bias not
 * penalised) by accelerated gradient descent with adaptive restart, at the step 1/L where
 * L bounds the curvature. Its cost per step is one pass over the data, so it scales to wide
 * hidden states where Newton's d×d system would not. Features are expected standardised
 * (see `standardize`), which keeps L small and λ comparable across models.
 */

export interface LogisticOptions {
  /** Stop when every gradient component is below this. Default 1e-6. */
  tolerance?: number;
  /** Default 5,000. */
  maxIterations?: number;
  /** Start from these weights and bias (a warm start along a λ path). */
  start?: { weights: Float64Array; bias: number };
}

export interface LogisticFit {
  weights: Float64Array;
  bias: number;
  iterations: number;
  converged: boolean;
}

/** Rows of features and their labels; every row has the same width. */
export interface Dataset {
  rows: readonly Float64Array[];
  labels: readonly boolean[];
}

export function predict(weights: Float64Array, bias: number, row: Float64Array): number {
  let z = bias;
  for (let j = 0; j < weights.length; j++) z += (weights[j] ?? 0) * (row[j] ?? 0);
  return sigmoid(z);
}

/** The objective's gradient at (w, b); `out` gets ∂/∂w, the return value is ∂/∂b. */
export function gradient(
  data: Dataset,
  lambda: number,
  weights: Float64Array,
  bias: number,
  out: Float64Array,
): number {
  const n = data.rows.length;
  out.fill(0);
  let biasGradient = 0;
  data.rows.forEach((row, i) => {
    const residual = (predict(weights, bias, row) - (data.labels[i] ? 1 : 0)) / n;
    for (let j = 0; j < out.length; j++) out[j] = (out[j] ?? 0) + residual * (row[j] ?? 0);
    biasGradient += residual;
  });
  for (let j = 0; j < out.length; j++) out[j] = (out[j] ?? 0) + lambda * (weights[j] ?? 0);
  return biasGradient;
}

/** The penalised mean log-loss the solver minimises. */
export function objective(data: Dataset, lambda: number, weights: Float64Array, bias: number) {
  let loss = 0;
  data.rows.forEach((row, i) => {
    let z = bias;
    for (let j = 0; j < weights.length; j++) z += (weights[j] ?? 0) * (row[j] ?? 0);
    const margin = data.labels[i] ? z : -z;
    // log(1 + e^−m), stable for large |m|.
    loss += margin > 0 ? Math.log1p(Math.exp(-margin)) : -margin + Math.log1p(Math.exp(margin));
  });
  let norm = 0;
  for (const w of weights) norm += w * w;
  return loss / data.rows.length + (lambda / 2) * norm;
}

export function fitLogistic(
  data: Dataset,
  lambda: number,
  options: LogisticOptions = {},
): LogisticFit {
  const width = data.rows[0]?.length ?? 0;
  const tolerance = options.tolerance ?? 1e-6;
  const maxIterations = options.maxIterations ?? 5000;
  // The curvature bound is an estimate: a step that fails to lower the objective as a true
  // bound guarantees is halved (backtracking), so the solver can neither diverge nor stall.
  let step = 1 / curvatureBound(data, lambda);
  let weights = Float64Array.from(options.start?.weights ?? new Float64Array(width));
  let bias = options.start?.bias ?? 0;
  // Look-ahead point (y) of the accelerated method and the momentum counter.
  const lookWeights = Float64Array.from(weights);
  let lookBias = bias;
  let t = 1;
  const grad = new Float64Array(width);
  for (let iteration = 1; iteration <= maxIterations; iteration++) {
    const biasGrad = gradient(data, lambda, lookWeights, lookBias, grad);
    if (maxAbs(grad, biasGrad) < tolerance) {
      return { weights: lookWeights, bias: lookBias, iterations: iteration, converged: true };
    }
    let gradNorm2 = biasGrad * biasGrad;
    for (const g of grad) gradNorm2 += g * g;
    const lookObjective = objective(data, lambda, lookWeights, lookBias);
    const nextWeights = new Float64Array(width);
    let nextBias = lookBias;
    for (;;) {
      for (let j = 0; j < width; j++)
        nextWeights[j] = (lookWeights[j] ?? 0) - step * (grad[j] ?? 0);
      nextBias = lookBias - step * biasGrad;
      const decrease = lookObjective - objective(data, lambda, nextWeights, nextBias);
      if (decrease >= (step / 2) * gradNorm2 - 1e-15 * Math.abs(lookObjective) || step < 1e-12)
        break;
      step /= 2;
    }
    // Restart the momentum when it points uphill (O'Donoghue & Candès): keeps it monotone.
    let uphill = (nextBias - bias) * biasGrad;
    for (let j = 0; j < width; j++)
      uphill += ((nextWeights[j] ?? 0) - (weights[j] ?? 0)) * (grad[j] ?? 0);
    const nextT = uphill > 0 ? 1 : (1 + Math.sqrt(1 + 4 * t * t)) / 2;
    const momentum = uphill > 0 ? 0 : (t - 1) / nextT;
    for (let j = 0; j < width; j++) {
      const w = nextWeights[j] ?? 0;
      lookWeights[j] = w + momentum * (w - (weights[j] ?? 0));
    }
    lookBias = nextBias + momentum * (nextBias - bias);
    weights = nextWeights;
    bias = nextBias;
    t = nextT;
  }
  return { weights, bias, iterations: maxIterations, converged: false };
}

/**
 * An upper bound on the objective's curvature: λ + ¼ of the largest eigenvalue of
 * (1/n) XᵀX with the bias column, estimated by power iteration and padded by 10 %
 * (bounded above by the trace, which needs no estimate).
 */
function curvatureBound(data: Dataset, lambda: number): number {
  const n = data.rows.length;
  const width = data.rows[0]?.length ?? 0;
  let trace = 1;
  for (const row of data.rows) for (const v of row) trace += (v * v) / n;
  let v = new Float64Array(width + 1).fill(1 / Math.sqrt(width + 1));
  let eigen = trace;
  for (let k = 0; k < 30; k++) {
    const next = new Float64Array(width + 1);
    for (const row of data.rows) {
      let dot = v[width] ?? 0;
      for (let j = 0; j < width; j++) dot += (row[j] ?? 0) * (v[j] ?? 0);
      for (let j = 0; j < width; j++) next[j] = (next[j] ?? 0) + ((row[j] ?? 0) * dot) / n;
      next[width] = (next[width] ?? 0) + dot / n;
    }
    let norm = 0;
    for (const x of next) norm += x * x;
    norm = Math.sqrt(norm);
    if (norm === 0) break;
    eigen = norm;
    v = next.map((x) => x / norm);
  }
  return lambda + Math.min(trace, eigen * 1.1) / 4 + 1e-12;
}

function maxAbs(values: Float64Array, extra: number): number {
  let max = Math.abs(extra);
  for (const v of values) max = Math.max(max, Math.abs(v));
  return max;
}

/** Per-feature mean and standard deviation of the rows (a constant feature gets scale 0). */
export interface Standardizer {
  mean: Float64Array;
  scale: Float64Array;
}

export function standardizer(rows: readonly Float64Array[]): Standardizer {
  const width = rows[0]?.length ?? 0;
  const mean = new Float64Array(width);
  const scale = new Float64Array(width);
  for (const row of rows)
    for (let j = 0; j < width; j++) mean[j] = (mean[j] ?? 0) + (row[j] ?? 0) / rows.length;
  for (const row of rows) {
    for (let j = 0; j < width; j++)
      scale[j] = (scale[j] ?? 0) + ((row[j] ?? 0) - (mean[j] ?? 0)) ** 2 / rows.length;
  }
  for (let j = 0; j < width; j++) scale[j] = Math.sqrt(scale[j] ?? 0);
  return { mean, scale };
}

/** (x − mean) / scale; a constant feature becomes 0 (it carries no information). */
export function standardize(s: Standardizer, row: Float64Array): Float64Array {
  return row.map((x, j) => {
    const scale = s.scale[j] ?? 0;
    return scale > 0 ? (x - (s.mean[j] ?? 0)) / scale : 0;
  });
}

/**
 * The weights on standardised features as a probe on raw features: w·(x−μ)/σ + b equals
 * (w/σ)·x + (b − Σ w μ/σ), so the head can read the model's hidden state directly.
 */
export function rawProbe(
  s: Standardizer,
  fit: { weights: Float64Array; bias: number },
): { probe: Float64Array; bias: number } {
  const probe = new Float64Array(fit.weights.length);
  let bias = fit.bias;
  for (let j = 0; j < probe.length; j++) {
    const scale = s.scale[j] ?? 0;
    if (scale === 0) continue;
    probe[j] = (fit.weights[j] ?? 0) / scale;
    bias -= (probe[j] ?? 0) * (s.mean[j] ?? 0);
  }
  return { probe, bias };
}
