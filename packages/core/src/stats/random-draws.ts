/** Draws from standard distributions, given a uniform generator on [0, 1). */

/** A standard normal draw (Box–Muller; the second value of each pair is not kept). */
export function normalDraw(random: () => number): number {
  // 1 − u lies in (0, 1], so the logarithm is finite.
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** A Gamma(shape, 1) draw for shape ≥ 1 (Marsaglia and Tsang, 2000). */
export function gammaDraw(random: () => number, shape: number): number {
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = normalDraw(random);
    const t = 1 + c * x;
    if (t <= 0) continue;
    const v = t * t * t;
    const u = 1 - random();
    if (u < 1 - 0.0331 * x ** 4) return d * v;
    if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

/** Below this many trials a binomial is drawn as a sum of Bernoulli trials. */
const DIRECT_TRIALS = 64;

/**
 * An exact Binomial(n, p) draw in O(log n) steps (Knuth, TAOCP vol. 2, 3.4.1): the a-th
 * smallest of n uniforms, a = 1 + ⌊n/2⌋, is Beta(a, n + 1 − a). When it lies above p, the
 * successes are among the a − 1 uniforms below it, each below p with chance p/Y; otherwise
 * those a are successes and the b − 1 above it are below p with chance (p − Y)/(1 − Y).
 */
export function binomialDraw(random: () => number, trials: number, p: number): number {
  let n = trials;
  let q = p;
  let successes = 0;
  while (n > DIRECT_TRIALS) {
    if (q <= 0) return successes;
    if (q >= 1) return successes + n;
    const a = 1 + Math.floor(n / 2);
    const b = n + 1 - a;
    const ga = gammaDraw(random, a);
    const y = ga / (ga + gammaDraw(random, b));
    if (y >= q) {
      n = a - 1;
      q /= y;
    } else {
      successes += a;
      n = b - 1;
      q = (q - y) / (1 - y);
    }
  }
  for (let i = 0; i < n; i += 1) if (random() < q) successes += 1;
  return successes;
}
