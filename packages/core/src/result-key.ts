/**
 * The fields of the result key, in the order job ids hash them. The one list the key's
 * spellings derive from: the job id, the key's text, the store's key columns and primary
 * keys. Adding a field here fails to compile wherever a key is built or stored until it is.
 */
export const RESULT_KEY_FIELDS = [
  "runId",
  "sampleId",
  "scorer",
  "criterion",
  "repetition",
] as const;

export type ResultKeyField = (typeof RESULT_KEY_FIELDS)[number];

/**
 * The unique key of one result row: a score is stored at most once per key. Its fields are
 * RESULT_KEY_FIELDS (test/result-key.test.ts checks the two agree when type checking).
 */
export interface ResultKey {
  runId: string;
  sampleId: string;
  scorer: string;
  criterion: string;
  repetition: number;
}

/**
 * The key as one string: its fields in RESULT_KEY_FIELDS order joined by NUL, which cannot
 * occur in Postgres text. Job ids hash it; the store compares stored keys by it.
 */
export function resultKeyText(key: ResultKey): string {
  // A loop over the list rather than map and join: this runs once per enqueued job.
  let text = key[RESULT_KEY_FIELDS[0]];
  for (let index = 1; index < RESULT_KEY_FIELDS.length; index += 1) {
    text += `\u0000${key[RESULT_KEY_FIELDS[index] as ResultKeyField]}`;
  }
  return text;
}
