import {
  type InputErrorSummary,
  NotFoundError,
  type RunSummary,
  type ScorerRuleSummary,
} from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";
import { answerJoinCounts } from "./answer-join-counts.js";

const EXAMPLE_ERRORS = 10;

interface GroupRow {
  scorer: string;
  rule: string;
  status: string;
  reason: string | null;
  n: number;
  total: number | null;
}

interface RunRow {
  name: string | null;
  dataset: string | null;
  started_at: Date | string;
  finished_at: Date | string | null;
  planned: number | null;
  samples: number;
  input_errors: number;
  calls: number;
  truncated: number;
  refused: number;
  altered_samples: number;
}

/** Where `assay prune` keeps a run's summary, taken from its raw rows before they go. */
export const PRUNED_SUMMARY_KIND = "run_summary";

export async function runSummary(runner: SqlRunner, runId: string): Promise<RunSummary> {
  const kept = await prunedSummary(runner, runId);
  if (kept !== undefined) return kept;
  const run = await runCounts(runner, runId);
  if (run === null) {
    throw new NotFoundError(`No run "${runId}" in this store. Check the id and the store (--db).`);
  }
  const groups = await scoreGroups(runner, runId);
  const answers = await answerJoinCounts(runner, runId);
  const { rows: examples } = await runner.query<InputErrorSummary>(
    `SELECT file, line, field, message FROM input_errors
     WHERE run_id = $1 ORDER BY line, file LIMIT ${EXAMPLE_ERRORS}`,
    [runId],
  );
  return {
    runId,
    name: run.name,
    dataset: run.dataset,
    startedAt: isoString(run.started_at),
    finishedAt: run.finished_at === null ? null : isoString(run.finished_at),
    planned: run.planned,
    samples: run.samples,
    results: groups.reduce((sum, group) => sum + group.results, 0),
    groups,
    inputErrors: run.input_errors,
    inputErrorExamples: examples,
    truncation: { calls: run.calls, truncated: run.truncated, refused: run.refused },
    alteredSamples: run.altered_samples,
    ...(answers !== undefined && { answers }),
  };
}

/** A pruned run's summary as it was when pruned; undefined for a run with its raw rows. */
async function prunedSummary(runner: SqlRunner, runId: string): Promise<RunSummary | undefined> {
  const { rows } = await runner.query<{ summary: RunSummary }>(
    `SELECT s.summary FROM runs r
     JOIN summary_rollups s ON s.run_id = r.id AND s.kind = $2 AND s.position = 0
     WHERE r.id = $1 AND r.pruned_at IS NOT NULL`,
    [runId, PRUNED_SUMMARY_KIND],
  );
  return rows[0]?.summary;
}

// The raw tables are filtered by $1, not by \`runs.id\`: a correlated filter is planned
// over every run's partition.
async function runCounts(runner: SqlRunner, runId: string): Promise<RunRow | null> {
  const { rows } = await runner.query<RunRow>(
    `SELECT name, dataset, created_at AS started_at, finished_at,
            planned_results::float8 AS planned,
            (SELECT count(*)::int FROM samples WHERE run_id = $1) AS samples,
            (SELECT count(*)::int FROM input_errors WHERE run_id = $1) AS input_errors,
            (SELECT count(DISTINCT sample_id)::int FROM scores
             WHERE run_id = $1 AND detail -> 'altered' IS NOT NULL) AS altered_samples,
            t.calls, t.truncated, t.refused
     FROM runs,
     LATERAL (SELECT count(*)::int AS calls,
                     count(*) FILTER (WHERE dropped_tokens > 0 AND kept_tokens > 0)::int AS truncated,
                     count(*) FILTER (WHERE kept_tokens = 0)::int AS refused
              FROM truncations WHERE run_id = $1) AS t
     WHERE id = $1`,
    [runId],
  );
  return rows[0] ?? null;
}

/** One scan of the run's scores, grouped finely in SQL and folded per (scorer, rule) here. */
async function scoreGroups(runner: SqlRunner, runId: string): Promise<ScorerRuleSummary[]> {
  const { rows } = await runner.query<GroupRow>(
    `SELECT scorer, rule, status, reason, count(*)::int AS n, sum(value) AS total
     FROM scores WHERE run_id = $1
     GROUP BY scorer, rule, status, reason
     ORDER BY scorer, rule`,
    [runId],
  );
  const groups = new Map<string, ScorerRuleSummary & { total: number }>();
  for (const row of rows) {
    const key = `${row.scorer}\u0000${row.rule}`;
    let group = groups.get(key);
    if (group === undefined) {
      group = {
        scorer: row.scorer,
        rule: row.rule,
        results: 0,
        scored: 0,
        mean: null,
        unscored: {},
        total: 0,
      };
      groups.set(key, group);
    }
    group.results += row.n;
    if (row.status === "scored") {
      group.scored += row.n;
      group.total += row.total ?? 0;
    } else {
      const reason = row.reason ?? "unknown";
      group.unscored[reason] = (group.unscored[reason] ?? 0) + row.n;
    }
  }
  return [...groups.values()].map(({ total, ...group }) => ({
    ...group,
    mean: group.scored > 0 ? total / group.scored : null,
  }));
}

/** node-postgres returns timestamptz as Date; keep the conversion in one place. */
function isoString(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
