import { type Rate, rateOf } from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";
import { num } from "./group-by-run.js";

// One pass over the run's selections (primary key range). count(col) counts the non-null
// flags: unknown correctness stays out of every denominator.
const SELECTION_STATS = `
  SELECT run_id,
         count(*) AS tasks,
         count(selected_index) AS selected_tasks,
         array_agg(DISTINCT method) AS methods,
         count(*) FILTER (WHERE first_correct) AS pass1, count(first_correct) AS pass1_of,
         count(*) FILTER (WHERE selected_correct) AS selected, count(selected_correct) AS selected_of,
         count(*) FILTER (WHERE any_correct) AS oracle, count(any_correct) AS oracle_of,
         count(*) FILTER (WHERE tie) AS ties,
         count(*) FILTER (WHERE discrete_tie) AS discrete_ties, count(discrete_tie) AS discrete_of
  FROM selections WHERE run_id = ANY($1::text[]) GROUP BY run_id`;

export interface SelectionStats {
  selectedTasks: number;
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
  return new Map(rows.map((r) => [r.run_id, statsOf(r)]));
}

/** What a run without stored selections reports: nothing known, nothing invented. */
export const NO_SELECTIONS: SelectionStats = {
  selectedTasks: 0,
  methods: [],
  pass1: rateOf(0, 0),
  selected: rateOf(0, 0),
  oracle: rateOf(0, 0),
  tie: rateOf(0, 0),
  discreteTie: rateOf(0, 0),
};

function statsOf(r: Row): SelectionStats {
  return {
    selectedTasks: num(r.selected_tasks),
    methods: r.methods,
    pass1: rateOf(num(r.pass1), num(r.pass1_of)),
    selected: rateOf(num(r.selected), num(r.selected_of)),
    oracle: rateOf(num(r.oracle), num(r.oracle_of)),
    tie: rateOf(num(r.ties), num(r.selected_tasks)),
    discreteTie: rateOf(num(r.discrete_ties), num(r.discrete_of)),
  };
}
