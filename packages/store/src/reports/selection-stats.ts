import { type Rate, rateOf } from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";
import { num } from "./group-by-run.js";

// One pass over the run's selections (primary key range). Both top-tie rates are over the
// tasks with a pick (a tie is a tie of the pick); the discrete one over those of them whose
// scored candidates all have distributions. All three accuracies count the same tasks (docs/architecture.md, "Selection"): those whose correctness is known for
// pass@1, the pick and the oracle. A task with nothing selected (no scored candidate) is unsolved, not unknown; rows
// stored before selected_correct said so carry a null there, hence the CASE.
const SELECTION_STATS = `
  WITH s AS (
    SELECT run_id, method, selected_index, tie, discrete_tie, first_correct, any_correct,
           CASE WHEN selected_index IS NULL THEN false ELSE selected_correct END AS picked_correct
    FROM selections WHERE run_id = ANY($1::text[])
  ), c AS (
    SELECT *, (first_correct IS NOT NULL AND picked_correct IS NOT NULL
               AND any_correct IS NOT NULL) AS counted
    FROM s
  )
  SELECT run_id,
         count(selected_index) AS selected_tasks,
         count(*) FILTER (WHERE selected_index IS NULL) AS unselected,
         array_agg(DISTINCT method) AS methods,
         count(*) FILTER (WHERE counted) AS counted,
         count(*) FILTER (WHERE counted AND first_correct) AS pass1,
         count(*) FILTER (WHERE counted AND picked_correct) AS selected,
         count(*) FILTER (WHERE counted AND any_correct) AS oracle,
         count(*) FILTER (WHERE tie) AS ties,
         count(*) FILTER (WHERE discrete_tie AND selected_index IS NOT NULL) AS discrete_ties,
         count(discrete_tie) FILTER (WHERE selected_index IS NOT NULL) AS discrete_of
  FROM c GROUP BY run_id`;

export interface SelectionStats {
  selectedTasks: number;
  unselected: number;
  methods: string[];
  pass1: Rate;
  selected: Rate;
  oracle: Rate;
  tie: Rate;
  discreteTie: Rate;
}

type Row = Record<string, unknown> & { run_id: string; methods: string[] };

export async function selectionStats(
  runner: SqlRunner,
  runIds: readonly string[],
): Promise<Map<string, SelectionStats>> {
  const { rows } = await runner.query<Row>(SELECTION_STATS, [runIds]);
  return new Map(rows.map((r) => [r.run_id, selectionStatsOf(r)]));
}

/** What a run without stored selections reports: nothing known, nothing invented. */
export const NO_SELECTIONS: SelectionStats = {
  selectedTasks: 0,
  unselected: 0,
  methods: [],
  pass1: rateOf(0, 0),
  selected: rateOf(0, 0),
  oracle: rateOf(0, 0),
  tie: rateOf(0, 0),
  discreteTie: rateOf(0, 0),
};

/** The stats from one row of the query's (or a rollup's) counts. */
export function selectionStatsOf(
  r: Record<string, unknown> & { methods: string[] },
): SelectionStats {
  const counted = num(r.counted);
  return {
    selectedTasks: num(r.selected_tasks),
    unselected: num(r.unselected),
    methods: r.methods,
    pass1: rateOf(num(r.pass1), counted),
    selected: rateOf(num(r.selected), counted),
    oracle: rateOf(num(r.oracle), counted),
    tie: rateOf(num(r.ties), num(r.selected_tasks)),
    discreteTie: rateOf(num(r.discrete_ties), num(r.discrete_of)),
  };
}
