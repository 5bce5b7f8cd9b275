import type { AnswerJoinCounts } from "@assay/core";
import { DATABASE_URL } from "@assay/test-support/services";
import pg from "pg";

/** Where a run's answer join stands on a server, read the way an operator would in psql. */
export interface AnswerJoinState {
  /**
   * Answer lines staged and not yet cleared by a finished join (which keeps only the
   * answered lines a reference row took, for `assay show`: those are not counted).
   */
  staged: number;
  /** The join's recorded figures; undefined until a join finished. */
  recorded: AnswerJoinCounts | undefined;
  /** Whether the run is marked finished. */
  finished: boolean;
  samples: number;
  inputErrors: number;
  /** Score rows, and how many distinct result keys they hold: equal when none doubled. */
  scores: { rows: number; distinctKeys: number };
}

export interface ServerRun {
  runId: string;
  /** Default: the shared test server. */
  url?: string;
  /** Default: the server's default schema. */
  schema?: string;
}

/** Reads a run's answer-join state. A server that is gone rejects. */
export async function answerJoinState(run: ServerRun): Promise<AnswerJoinState> {
  return withClient(run, async (client, table) => {
    const count = async (sql: string) =>
      Number((await client.query(sql, [run.runId])).rows[0]?.n ?? 0);
    const { rows: joins } = await client.query(
      `SELECT joined, missing_answers, unmatched_answers, failed_requests, duplicate_answers,
              retried_failures, unjoined_usage
         FROM ${table("answer_joins")} WHERE run_id = $1`,
      [run.runId],
    );
    const { rows: scores } = await client.query(
      `SELECT count(*)::int AS rows,
              count(DISTINCT (sample_id, scorer, criterion, repetition))::int AS "distinctKeys"
         FROM ${table("scores")} WHERE run_id = $1`,
      [run.runId],
    );
    const join = joins[0];
    return {
      staged: await count(
        `SELECT count(*) AS n FROM ${table("answer_staging")}
         WHERE run_id = $1 AND NOT (matched AND outcome = 'answered')`,
      ),
      recorded:
        join === undefined
          ? undefined
          : {
              joined: Number(join.joined),
              missingAnswers: Number(join.missing_answers),
              unmatchedAnswers: Number(join.unmatched_answers),
              failedRequests: Number(join.failed_requests),
              duplicateAnswers: Number(join.duplicate_answers),
              retriedFailures: Number(join.retried_failures),
              unjoined: join.unjoined_usage,
            },
      finished:
        (await count(
          `SELECT count(*) AS n FROM ${table("runs")} WHERE id = $1 AND finished_at IS NOT NULL`,
        )) === 1,
      samples: await count(`SELECT count(*) AS n FROM ${table("samples")} WHERE run_id = $1`),
      inputErrors: await count(
        `SELECT count(*) AS n FROM ${table("input_errors")} WHERE run_id = $1`,
      ),
      scores: scores[0] as { rows: number; distinctKeys: number },
    };
  });
}

/**
 * What a run stored, without its run id or times: its scores, usage and input errors in a
 * fixed order, so that two runs of the same files compare equal.
 */
export async function storedFigures(run: ServerRun): Promise<Record<string, unknown[]>> {
  return withClient(run, async (client, table) => {
    const rows = async (sql: string) => (await client.query(sql, [run.runId])).rows;
    return {
      scores: await rows(
        `SELECT sample_id, scorer, criterion, repetition, value
           FROM ${table("scores")} WHERE run_id = $1 ORDER BY sample_id, scorer`,
      ),
      usage: await rows(
        `SELECT sample_id, role, scorer, model, input_tokens, cached_input_tokens, output_tokens
           FROM ${table("usage")} WHERE run_id = $1 ORDER BY sample_id, role, scorer`,
      ),
      inputErrors: await rows(
        `SELECT file, line, field, message
           FROM ${table("input_errors")} WHERE run_id = $1 ORDER BY file, line`,
      ),
    };
  });
}

async function withClient<T>(
  run: ServerRun,
  use: (client: pg.Client, table: (name: string) => string) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({
    connectionString: run.url ?? DATABASE_URL,
    connectionTimeoutMillis: 3000,
  });
  client.on("error", () => {});
  await client.connect();
  const table = (name: string) => (run.schema === undefined ? name : `"${run.schema}".${name}`);
  try {
    return await use(client, table);
  } finally {
    await client.end();
  }
}
