/**
 * One `count(...) FILTER (WHERE lo <= expr < hi)` column per bucket. Grouping on a
 * computed bucket instead makes Postgres guess ~100,000 groups and sort (spilling to disk);
 * fixed FILTER columns keep a hash aggregate with a handful of groups, no sort.
 */
export function bucketColumns(
  expression: string,
  edges: readonly number[],
  counted: string,
  prefix: string,
): string {
  return edges
    .map((low, i) => {
      const high = edges[i + 1];
      const range =
        high === undefined
          ? `${expression} >= ${low}`
          : `${expression} >= ${low} AND ${expression} < ${high}`;
      return `count(${counted}) FILTER (WHERE ${range}) AS ${prefix}${i}`;
    })
    .join(",\n         ");
}
