import { sigmoid } from "@assay/core";
import { solveLinear } from "./solve-linear.js";

/** P(a beats b) for one judged pair. */
export interface PairProbability {
  a: number;
  b: number;
  probability: number;
}

export interface BradleyTerryOptions {
  /** Stop when no log-strength moves more than this in one step. Default 1e-10. */
  tolerance?: number;
  /** Upper bound on Newton steps. Default 100. */
  maxIterations?: number;
}

export interface BradleyTerryFit {
  /** Log-strength θ by candidate index, mean 0; only candidates in some pair. */
  strengths: Map<number, number>;
  iterations: number;
  converged: boolean;
}

/**
 * Probabilities are kept inside [ε, 1 − ε]: a candidate that wins every comparison with
 * probability 1 has no finite maximum-likelihood strength.
 */
const EPSILON = 1e-6;

/**
 * Bradley–Terry log-strengths from judged probabilities, P(a beats b) = σ(θ_a − θ_b), fitted
 * by maximum likelihood with the probabilities as soft wins. Newton's method on the concave
 * log-likelihood, halving a step that does not improve it: the classic MM iteration
 * (Hunter 2004) needs thousands of steps on a pivot tournament's star-shaped graph when one
 * candidate is much stronger, Newton a dozen. Hand-written: the maintained libraries we
 * found fit from win counts or rate players online (Elo, Glicko), not from probabilities.
 * On a connected comparison graph (a pivot tournament's is) the maximum is unique.
 */
export function fitBradleyTerry(
  pairs: readonly PairProbability[],
  options: BradleyTerryOptions = {},
): BradleyTerryFit {
  const tolerance = options.tolerance ?? 1e-10;
  const maxIterations = options.maxIterations ?? 100;
  const players = [...new Set(pairs.flatMap((p) => [p.a, p.b]))].sort((x, y) => x - y);
  const slot = new Map(players.map((index, i) => [index, i]));
  const edges = pairs.map((p) => ({
    a: slot.get(p.a) as number,
    b: slot.get(p.b) as number,
    win: Math.min(1 - EPSILON, Math.max(EPSILON, p.probability)),
  }));
  let theta = players.map(() => 0);
  let iterations = 0;
  let converged = players.length === 0;
  while (!converged && iterations < maxIterations) {
    iterations += 1;
    const step = newtonStep(theta, edges);
    let scale = 1;
    let next = theta.map((t, i) => t + (step[i] ?? 0));
    // Halve until the likelihood does not get worse (it always improves for a small enough step).
    while (loss(next, edges) > loss(theta, edges) && scale > 1e-6) {
      scale /= 2;
      next = theta.map((t, i) => t + scale * (step[i] ?? 0));
    }
    const moved = Math.max(...next.map((t, i) => Math.abs(t - (theta[i] ?? 0))));
    theta = centred(next);
    converged = moved <= tolerance;
  }
  return {
    strengths: new Map(players.map((index, i) => [index, theta[i] ?? 0])),
    iterations,
    converged,
  };
}

interface Edge {
  a: number;
  b: number;
  win: number;
}

/** −log-likelihood of the soft wins. */
function loss(theta: readonly number[], edges: readonly Edge[]): number {
  return edges.reduce((sum, { a, b, win }) => {
    const p = sigmoid((theta[a] ?? 0) - (theta[b] ?? 0));
    return sum - win * Math.log(p) - (1 - win) * Math.log(1 - p);
  }, 0);
}

/**
 * Solves H·δ = −g. H is a graph Laplacian (null space: a common shift of every θ), so the
 * all-ones matrix is added to pin the mean, and a tiny ridge keeps a disconnected graph
 * solvable (its components' relative strengths are then not identified).
 */
function newtonStep(theta: readonly number[], edges: readonly Edge[]): number[] {
  const n = theta.length;
  const gradient = theta.map(() => 0);
  const hessian = theta.map(() => theta.map(() => 1));
  for (const { a, b, win } of edges) {
    const p = sigmoid((theta[a] ?? 0) - (theta[b] ?? 0));
    const d = p - win;
    gradient[a] = (gradient[a] ?? 0) + d;
    gradient[b] = (gradient[b] ?? 0) - d;
    const h = p * (1 - p);
    addAt(hessian, a, a, h);
    addAt(hessian, b, b, h);
    addAt(hessian, a, b, -h);
    addAt(hessian, b, a, -h);
  }
  for (let i = 0; i < n; i += 1) addAt(hessian, i, i, 1e-12);
  return solveLinear(
    hessian,
    gradient.map((g) => -g),
  );
}

function addAt(matrix: number[][], i: number, j: number, value: number): void {
  const row = matrix[i] as number[];
  row[j] = (row[j] ?? 0) + value;
}

function centred(theta: readonly number[]): number[] {
  const mean = theta.reduce((sum, t) => sum + t, 0) / Math.max(1, theta.length);
  return theta.map((t) => t - mean);
}
