import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ScoreRow } from "@assay/core";
import type { Store } from "@assay/store";
import { driverOf } from "@assay/store/driver";
import { from as copyFrom } from "pg-copy-streams";

// The benchmark's yardstick: the fastest plain bulk load of the same rows into the same
// table, with none of the writer's guarantees (no conflict handling, no batching policy).

const COPY_SCORES =
  "COPY scores (run_id, sample_id, scorer, criterion, repetition, rule, status, value, reason, detail)";
const ROWS_PER_CHUNK = 10_000;

/** Loads `rows` with COPY (PGlite: COPY from a blob); returns the rows loaded. */
export async function rawBulkInsertScores(
  store: Store,
  rows: readonly ScoreRow[],
): Promise<number> {
  const driver = driverOf(store);
  if (driver.kind === "pglite") {
    const blob = new Blob([...copyText(rows)]);
    const result = await driver.client.query(`${COPY_SCORES} FROM '/dev/blob'`, [], { blob });
    return result.affectedRows ?? 0;
  }
  const client = await driver.pool.connect();
  try {
    const copy = client.query(copyFrom(`${COPY_SCORES} FROM STDIN`));
    await pipeline(Readable.from(copyText(rows)), copy);
    return copy.rowCount;
  } finally {
    client.release();
  }
}

/** COPY text format, in chunks of many rows so neither side sees one huge string. */
function* copyText(rows: readonly ScoreRow[]): Generator<string> {
  for (let start = 0; start < rows.length; start += ROWS_PER_CHUNK) {
    let chunk = "";
    for (const row of rows.slice(start, start + ROWS_PER_CHUNK)) {
      chunk += `${[
        text(row.runId),
        text(row.sampleId),
        text(row.scorer),
        text(row.criterion),
        String(row.repetition),
        text(row.rule),
        text(row.status),
        row.value === null ? "\\N" : String(row.value),
        row.reason === null ? "\\N" : text(row.reason),
        row.detail === null ? "\\N" : text(JSON.stringify(row.detail)),
      ].join("\t")}\n`;
    }
    yield chunk;
  }
}

const SPECIAL = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };

function text(value: string): string {
  return value.replace(SPECIAL, (char) => ESCAPES[char] ?? char);
}
