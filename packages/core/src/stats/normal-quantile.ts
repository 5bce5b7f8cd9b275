// Coefficients of P. J. Acklam's rational approximation of the standard normal quantile
// (relative error below 1.15e-9 over (0, 1)): a central rational function and one for
// each tail. Written here because the maintained packages that compute it bring a hundred
// dependencies into both worker images for this one function.
const A = [
  -3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2,
  -3.066479806614716e1, 2.506628277459239,
];
const B = [
  -5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1,
  -1.328068155288572e1,
];
const C = [
  -7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734,
  4.374664141464968, 2.938163982698783,
];
const D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
const LOW = 0.02425;

/** The standard normal distribution's p-quantile, for p in (0, 1). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`Expected a probability in (0, 1), got ${p}`);
  if (p < LOW) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - LOW) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return (q * polynomial(A, r)) / (polynomial(B, r) * r + 1);
}

function tail(q: number): number {
  return polynomial(C, q) / (polynomial(D, q) * q + 1);
}

/** c[0]·x^(k−1) + … + c[k−1], by Horner's rule. */
function polynomial(c: readonly number[], x: number): number {
  let value = 0;
  for (const coefficient of c) value = value * x + coefficient;
  return value;
}
