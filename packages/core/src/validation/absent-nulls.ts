/**
 * The one rule for `null` in a dataset, whatever its format: a field whose value is null
 * is a field left out. DuckDB, pandas and `datasets` write every column of every row, null
 * where a row has none; Parquet has no other way to say it. This holds for the record's
 * fields and each candidate's; inside a value (metadata, a target object) null is data.
 * Returns the record itself when it holds no such null (the usual case, one look a key).
 */
export function withoutAbsentNulls(record: Record<string, unknown>): Record<string, unknown> {
  if (!hasAbsentNull(record)) return record;
  const kept: Record<string, unknown> = {};
  for (const key in record) {
    const value = record[key];
    if (value === null) continue;
    kept[key] = key === "candidates" && Array.isArray(value) ? value.map(candidateOf) : value;
  }
  return kept;
}

function hasAbsentNull(record: Record<string, unknown>): boolean {
  for (const key in record) {
    if (record[key] === null) return true;
  }
  const candidates = record.candidates;
  return Array.isArray(candidates) && candidates.some((item) => isObject(item) && hasNull(item));
}

function candidateOf(item: unknown): unknown {
  if (!isObject(item) || !hasNull(item)) return item;
  const kept: Record<string, unknown> = {};
  for (const key in item) if (item[key] !== null) kept[key] = item[key];
  return kept;
}

function hasNull(item: Record<string, unknown>): boolean {
  for (const key in item) if (item[key] === null) return true;
  return false;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
