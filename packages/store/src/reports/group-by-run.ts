/** Rows of a query grouped by run id, for queries that answer several runs at once. */
export function groupByRun<R extends { run_id: string }>(rows: readonly R[]): Map<string, R[]> {
  const groups = new Map<string, R[]>();
  for (const row of rows) {
    const group = groups.get(row.run_id);
    if (group === undefined) groups.set(row.run_id, [row]);
    else group.push(row);
  }
  return groups;
}

/** Counts come back as bigint strings from pg and numbers from PGlite. */
export function num(value: unknown): number {
  return typeof value === "number" ? value : Number(value ?? 0);
}

export function numOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}
