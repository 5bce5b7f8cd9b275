/**
 * The index selection knows each of a task's candidates by, given their stored candidate
 * indices in the order the store reads them (candidate index, then line, then sample id).
 * Candidates of one `candidates` line have indices 0..N−1, which are kept. A task whose
 * samples come from several lines (`task_id`) can hold one index many times (every
 * single-answer line is candidate 0): selection would then take them for one candidate,
 * rank by whichever came last and report that one, so instead each is known by its
 * position in that order (the first line's is candidate 0, as pass@1 reads it).
 */
export function candidateIndices(stored: readonly number[]): readonly number[] {
  return distinct(stored) ? stored : stored.map((_, position) => position);
}

// Once per task over a whole run: rising indices (the store's order, the usual case) are
// told at a glance, without building a set.
function distinct(indices: readonly number[]): boolean {
  let rising = true;
  for (let i = 1; i < indices.length && rising; i += 1) {
    rising = (indices[i] as number) > (indices[i - 1] as number);
  }
  return rising || new Set(indices).size === indices.length;
}
