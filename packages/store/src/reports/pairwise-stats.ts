import { type PairwiseReport, rateOf } from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";
import { num } from "./group-by-run.js";

// Over the selections rollup: a task ranked by a pairwise judge keeps best-of-N's pick
// (`detail.pointwise`) and the judge's pair counts (`detail.pairwise`). Both accuracies
// count the same tasks; a task with nothing picked is unsolved, as in selection-stats.
const PAIRWISE_STATS = `
  WITH s AS (
    SELECT run_id, first_correct, any_correct,
           CASE WHEN selected_index IS NULL THEN false ELSE selected_correct END AS pairwise_correct,
           (detail -> 'pointwise' ->> 'selectedCorrect')::boolean AS pointwise_correct,
           (detail -> 'pairwise' ->> 'judgedPairs')::int AS judged,
           (detail -> 'pairwise' ->> 'flippedPairs')::int AS flipped
    FROM selections WHERE run_id = ANY($1::text[]) AND detail ? 'pairwise'
  ), c AS (
    SELECT *, (first_correct IS NOT NULL AND any_correct IS NOT NULL
               AND pairwise_correct IS NOT NULL AND pointwise_correct IS NOT NULL) AS counted
    FROM s
  )
  SELECT run_id, count(*) AS tasks, count(*) FILTER (WHERE counted) AS counted,
         count(*) FILTER (WHERE counted AND pointwise_correct) AS pointwise,
         count(*) FILTER (WHERE counted AND pairwise_correct) AS pairwise,
         sum(judged) AS judged, sum(flipped) AS flipped
  FROM c GROUP BY run_id`;

type Row = Record<string, unknown> & { run_id: string };

/** Runs whose selection used a pairwise judge; a run without one is absent. */
export async function pairwiseStats(
  runner: SqlRunner,
  runIds: readonly string[],
): Promise<Map<string, PairwiseReport>> {
  const { rows } = await runner.query<Row>(PAIRWISE_STATS, [runIds]);
  return new Map(
    rows.map((r) => [
      r.run_id,
      {
        tasks: num(r.tasks),
        pointwiseSelected: rateOf(num(r.pointwise), num(r.counted)),
        pairwiseSelected: rateOf(num(r.pairwise), num(r.counted)),
        positionBias: rateOf(num(r.flipped), num(r.judged)),
      },
    ]),
  );
}
