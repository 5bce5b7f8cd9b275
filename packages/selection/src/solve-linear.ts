/**
 * Solves A·x = b by Gaussian elimination with partial pivoting. For the small dense systems
 * of one task's Bradley–Terry fit (N candidates), where a linear-algebra dependency would
 * weigh more than the dozen lines it replaces.
 */
export function solveLinear(
  matrix: readonly (readonly number[])[],
  rhs: readonly number[],
): number[] {
  const n = rhs.length;
  const a = matrix.map((row, i) => [...row, rhs[i] ?? 0]);
  for (let col = 0; col < n; col += 1) {
    let pivot = col;
    for (let row = col + 1; row < n; row += 1) {
      if (Math.abs(at(a, row, col)) > Math.abs(at(a, pivot, col))) pivot = row;
    }
    [a[col], a[pivot]] = [a[pivot] as number[], a[col] as number[]];
    const lead = at(a, col, col);
    if (lead === 0) continue;
    for (let row = col + 1; row < n; row += 1) {
      const factor = at(a, row, col) / lead;
      if (factor === 0) continue;
      for (let k = col; k <= n; k += 1)
        (a[row] as number[])[k] = at(a, row, k) - factor * at(a, col, k);
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let row = n - 1; row >= 0; row -= 1) {
    let sum = at(a, row, n);
    for (let k = row + 1; k < n; k += 1) sum -= at(a, row, k) * (x[k] ?? 0);
    const lead = at(a, row, row);
    x[row] = lead === 0 ? 0 : sum / lead;
  }
  return x;
}

function at(a: readonly (readonly number[])[], row: number, col: number): number {
  return a[row]?.[col] ?? 0;
}
