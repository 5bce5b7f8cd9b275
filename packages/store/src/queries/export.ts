import { type ExportRow, RESULT_KEY_FIELDS } from "@assay/core";
import { type SQL, sql } from "drizzle-orm";
import { samples, scores } from "../schema.js";
import type { SqlRunner } from "../sql-runner.js";
import { querySql } from "../sql-text.js";

const PAGE_SIZE = 5000;

/** The result key's columns after `run_id`: the order the pages walk within a run. */
const PAGE_KEY = RESULT_KEY_FIELDS.filter((field) => field !== "runId").map(
  (field) => scores[field],
);

// Keyset pagination: each page starts after the last key of the previous one, walking the
// primary-key index, so page N costs the same as page 1 and no cursor stays open between
// pages. A score without its sample row (written by hand) falls back to its own id as task.
function page(runId: string, after: ExportRow | undefined): SQL {
  const key = sql.join(PAGE_KEY, sql`, `);
  const afterLast =
    after === undefined
      ? sql``
      : sql`AND (${key}) > (${sql.join(
          PAGE_KEY.map((column) => sql`${after[column.name as keyof ExportRow]}`),
          sql`, `,
        )})`;
  return sql`
    SELECT ${scores.runId}, ${scores.sampleId},
           coalesce(${samples.taskId}, ${scores.sampleId}) AS task_id,
           ${scores.scorer}, ${scores.criterion}, ${scores.repetition}, ${scores.status},
           ${scores.value}, ${scores.reason}, ${scores.rule}, ${scores.detail}
    FROM ${scores}
    LEFT JOIN ${samples}
      ON ${samples.runId} = ${scores.runId} AND ${samples.sampleId} = ${scores.sampleId}
    WHERE ${scores.runId} = ${runId} ${afterLast}
    ORDER BY ${key}
    LIMIT ${sql.raw(String(PAGE_SIZE))}`;
}

export async function* exportScores(runner: SqlRunner, runId: string): AsyncGenerator<ExportRow> {
  let last: ExportRow | undefined;
  for (;;) {
    const { rows } = await querySql<ExportRow>(runner, page(runId, last));
    yield* rows;
    last = rows.at(-1);
    if (last === undefined || rows.length < PAGE_SIZE) return;
  }
}
