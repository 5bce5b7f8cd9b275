import type { CandidateQuery, SelectionRecord, TaskCandidates } from "@assay/core";
import { pairScores } from "../reports/pair-scores.js";
import { dropRollups } from "../reports/rollups/write-rollups.js";
import type { StoreDriver } from "../store-driver.js";
import { copyField, inTransaction, type TransactionRunner } from "../transaction.js";
import { TaskAssembler } from "./task-assembler.js";

export interface ReplaceSelectionsOptions {
  /** Rows (candidates) read per round trip. Default 10,000. */
  fetchRows?: number;
}

/**
 * Stored values of one scorer by sample id, read inside the selection's transaction: the
 * value, or null when the scorer left the sample unscored; ids with no row are absent.
 */
export type ScoreLookup = (
  scorer: string,
  sampleIds: readonly string[],
) => Promise<Map<string, number | null>>;

/**
 * Turns a chunk of whole tasks into their selections; selection's pure functions go here.
 * `lookup` reads further stored values the choice needs (a pairwise judge's).
 */
export type ChooseSelections = (
  tasks: readonly TaskCandidates[],
  lookup: ScoreLookup,
) => SelectionRecord[] | Promise<SelectionRecord[]>;

/**
 * Starts a pass over the run: what it returns sees each task once. A pass can be undone and
 * started again, so whatever is added up across batches belongs to the pass.
 */
export type SelectionPass = () => ChooseSelections;

// One pass over the run, a whole task at a time. Each sample's verifier and check rows are
// folded into one row: a scorer's value is the mean of its rows, null as soon as one is
// unscored (a partial mean would pretend to know more than it does) or when it has none
// (bool_and over no rows is null); avg skips null values, as before.
// The discrete-judge score is the mean of the verifier rows' stored levels (rows whose
// detail has criteria), summed in criterion and repetition order as selection's own mean
// sums them, so the two agree to the last bit: the rows come from a subquery in that order
// (the primary key's), which the aggregate keeps. Only a sample with such a row stored
// without a level (written before the column, or a distribution JSON stores differently)
// has its rows read again, each as its level or its distributions, for selection to work
// out; CASE runs that subquery for those samples only. Both keep the client's cost down:
// it is mostly parsing what it receives.
// Strict, with filters: a criteria or variants value that is not an array, or an element
// that is not an object, holds no distribution (lax mode would wrap or unwrap it), as
// selection's own reading of a detail has it; `silent` turns strict errors into nothing.
const DISTRIBUTIONS =
  'strict $.criteria[*] ? (@.variants.type() == "array")' +
  '.variants[*] ? (@.distribution.type() == "array").distribution';

const CANDIDATE_COLUMNS = `
  sm.task_id, sm.sample_id, sm.candidate_index, sm.label,
  a.verifier_score, a.check_value, a.discrete,
  CASE WHEN a.unleveled THEN (
    SELECT jsonb_agg(COALESCE(to_jsonb(r.discrete_level),
                              jsonb_path_query_array(r.detail, '${DISTRIBUTIONS}', '{}', true))
                     ORDER BY r.criterion, r.repetition)
    FROM scores r
    WHERE r.run_id = sm.run_id AND r.sample_id = sm.sample_id AND r.scorer = $2
      AND r.detail ? 'criteria') END AS distributions,
  sm.line`;

const SAMPLE_AGGREGATES = `
  CASE WHEN bool_and(s.status = 'scored') FILTER (WHERE s.scorer = $2)
       THEN avg(s.value) FILTER (WHERE s.scorer = $2) END AS verifier_score,
  CASE WHEN bool_and(s.status = 'scored') FILTER (WHERE s.scorer = $3)
       THEN avg(s.value) FILTER (WHERE s.scorer = $3) END AS check_value,
  CASE WHEN count(*) FILTER (WHERE s.graded) = count(s.discrete_level) FILTER (WHERE s.graded)
       THEN avg(s.discrete_level) FILTER (WHERE s.graded) END AS discrete,
  count(*) FILTER (WHERE s.graded) > count(s.discrete_level) FILTER (WHERE s.graded) AS unleveled`;

/** The run's verifier and check rows, as the aggregates read them; `where` narrows them. */
const scoreRows = (where: string, order: string) => `
  SELECT sample_id, scorer, status, value, discrete_level,
         scorer = $2 AND detail ? 'criteria' AS graded
  FROM scores
  WHERE run_id = $1 AND ${where} AND scorer IN ($2, $3)
  ORDER BY ${order}`;

// Usually a run's tasks are contiguous in sample id order (a line's candidates are
// `<id>#<n>` of task `<id>`): then the scores are read as one range of their primary key,
// folded per sample and merged with the samples in that order, a stream with no sort and
// no hash. A row says whether its task id is lower than the row before's (true, else null,
// which costs the client nothing to decode): along a sequence whose task ids never go back,
// equal ones are side by side, so every task is contiguous. When one goes back, the pass is
// undone and made again in task order, each sample's rows found by a primary-key lookup:
// also a stream, but that query takes about twice the server's time (1M candidates: ~4.8 s
// against ~2.2 s; the whole pass, 1.3× the wall time). Either way the server's memory stays
// flat.
const IN_SAMPLE_ORDER = `
  DECLARE run_candidates NO SCROLL CURSOR FOR
  SELECT ${CANDIDATE_COLUMNS},
         CASE WHEN sm.task_id < lag(sm.task_id) OVER (ORDER BY sm.sample_id) THEN true END
           AS task_came_back
  FROM samples sm
  LEFT JOIN (
    SELECT s.sample_id, ${SAMPLE_AGGREGATES}
    FROM (${scoreRows("true", "sample_id, scorer, criterion, repetition")}) s
    GROUP BY s.sample_id
  ) a ON a.sample_id = sm.sample_id
  WHERE sm.run_id = $1
  ORDER BY sm.sample_id`;

const IN_TASK_ORDER = `
  DECLARE run_candidates NO SCROLL CURSOR FOR
  SELECT ${CANDIDATE_COLUMNS}
  FROM samples sm
  CROSS JOIN LATERAL (
    SELECT ${SAMPLE_AGGREGATES}
    FROM (${scoreRows("sample_id = sm.sample_id", "scorer, criterion, repetition")}) s
  ) a
  WHERE sm.run_id = $1
  ORDER BY sm.task_id, sm.candidate_index, sm.line, sm.sample_id`;

// A cursor's plan is made for its first rows by default (cursor_tuple_fraction 0.1), which
// favours a lookup per sample; every row is read here. Compiling the plan (JIT) costs more
// than it saves on these queries (~0.3 s at 1M candidates).
const PLAN_FOR_EVERY_ROW =
  "SELECT set_config('cursor_tuple_fraction', '1', true), set_config('jit', 'off', true)";

const COPY_SELECTIONS =
  "COPY selections (run_id, task_id, method, candidates, selected_index, selected_sample_id, " +
  "tie, discrete_tie, tie_break, selected_correct, first_correct, any_correct, detail)";

/**
 * Replaces the run's selections in one transaction: a reader sees the earlier selections or
 * the new ones, never a mix, and two passes over one run take turns (advisory lock). The
 * candidates are read once, a fetch at a time; each batch of whole tasks goes to the
 * pass's `choose`, and what it returns is loaded with COPY. Memory holds one fetch, however
 * large the run. A pass in sample id order that finds a task out of place is undone
 * (savepoint) and `startPass` is called again for a pass in task order. Returns the number
 * of selections stored.
 */
export function replaceSelections(
  driver: StoreDriver,
  runId: string,
  query: CandidateQuery,
  startPass: SelectionPass,
  options: ReplaceSelectionsOptions = {},
): Promise<number> {
  const fetchRows = checkedFetchRows(options.fetchRows ?? 10_000);
  return inTransaction(driver, async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtextextended('assay.selections:' || $1, 0))", [
      runId,
    ]);
    await tx.query("DELETE FROM selections WHERE run_id = $1", [runId]);
    // The run's rollups hold its accuracy: reports read raw rows until they are rewritten.
    await dropRollups(tx, runId);
    await tx.query(PLAN_FOR_EVERY_ROW);
    const pass = {
      tx,
      runId,
      fetchRows,
      params: [runId, query.verifierScorer, query.checkScorer ?? null],
    };
    await tx.query("SAVEPOINT sample_order");
    const stored = await selectAll({ ...pass, declare: IN_SAMPLE_ORDER, choose: startPass() });
    if (stored !== undefined) return stored;
    await tx.query("ROLLBACK TO SAVEPOINT sample_order");
    return (await selectAll({ ...pass, declare: IN_TASK_ORDER, choose: startPass() })) ?? 0;
  });
}

/** One read of the run through a cursor, for `selectAll`. */
interface CursorPass {
  tx: TransactionRunner;
  runId: string;
  fetchRows: number;
  declare: string;
  params: unknown[];
  choose: ChooseSelections;
}

/**
 * One pass through the declared cursor: the selections stored, or undefined as soon as a
 * row says its task came back (what this pass stored is then to be undone).
 */
async function selectAll({ tx, runId, fetchRows, declare, params, choose }: CursorPass) {
  await tx.query(declare, params);
  const assembler = new TaskAssembler();
  const lookup: ScoreLookup = (scorer, ids) => pairScores(tx, runId, scorer, ids);
  const fetch = () => {
    const rows = tx.queryArrays(`FETCH ${fetchRows} FROM run_candidates`);
    rows.catch(() => {}); // awaited below; a batch that fails first must not leave it unhandled
    return rows;
  };
  let stored = 0;
  let next = fetch();
  for (;;) {
    const rows = await next;
    if (rows.some(taskCameBack)) return undefined;
    const last = rows.length < fetchRows;
    // The server finds the next rows while this batch is selected (same connection,
    // so the COPY below queues behind that fetch).
    if (!last) next = fetch();
    const tasks = assembler.add(rows, last);
    if (tasks.length > 0) stored += await copySelections(tx, runId, await choose(tasks, lookup));
    if (last) return stored;
  }
}

/** The sample-order pass's last column: this row's task id is lower than the row before's. */
function taskCameBack(row: unknown[]): boolean {
  return row[9] === true;
}

async function copySelections(
  tx: TransactionRunner,
  runId: string,
  records: readonly SelectionRecord[],
): Promise<number> {
  if (records.length === 0) return 0;
  const run = copyField(runId);
  let text = "";
  for (const r of records) {
    text += `${run}\t${copyField(r.taskId)}\t${copyField(r.method)}\t${r.candidates}\t${copyField(
      r.selectedIndex,
    )}\t${copyField(r.selectedSampleId)}\t${copyField(r.tie)}\t${copyField(r.discreteTie)}\t${copyField(
      r.tieBreak,
    )}\t${copyField(r.selectedCorrect)}\t${copyField(r.firstCorrect)}\t${copyField(
      r.anyCorrect,
    )}\t${copyField(JSON.stringify(r.detail))}\n`;
  }
  return tx.copyIn(COPY_SELECTIONS, text);
}

function checkedFetchRows(rows: number): number {
  if (Number.isInteger(rows) && rows >= 1) return rows;
  throw new RangeError(`Expected \`fetchRows\` to be an integer from 1 and up, got \`${rows}\``);
}
