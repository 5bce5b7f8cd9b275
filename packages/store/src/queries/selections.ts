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

// One ordered pass over the run: the samples in task order (samples_run_task_idx), each
// sample's verifier and check rows by primary-key lookup, folded into one row per sample.
// The plan streams (no hash of the run, no sort beyond a task's few candidates), so the
// server's memory stays flat too. A scorer's value is the mean of its rows, null as soon as
// one is unscored (a partial mean would pretend to know more than it does) or when it has
// none (bool_and over no rows is null); avg skips null values, as before.
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

const DECLARE = `
  DECLARE run_candidates NO SCROLL CURSOR FOR
  SELECT sm.task_id, sm.sample_id, sm.candidate_index, sm.label,
         a.verifier_score, a.check_value, a.discrete,
         CASE WHEN a.unleveled THEN (
           SELECT jsonb_agg(COALESCE(to_jsonb(r.discrete_level),
                                     jsonb_path_query_array(r.detail, '${DISTRIBUTIONS}', '{}', true))
                            ORDER BY r.criterion, r.repetition)
           FROM scores r
           WHERE r.run_id = sm.run_id AND r.sample_id = sm.sample_id AND r.scorer = $2
             AND r.detail ? 'criteria') END AS distributions
  FROM samples sm
  CROSS JOIN LATERAL (
    SELECT CASE WHEN bool_and(s.status = 'scored') FILTER (WHERE s.scorer = $2)
                THEN avg(s.value) FILTER (WHERE s.scorer = $2) END AS verifier_score,
           CASE WHEN bool_and(s.status = 'scored') FILTER (WHERE s.scorer = $3)
                THEN avg(s.value) FILTER (WHERE s.scorer = $3) END AS check_value,
           CASE WHEN count(*) FILTER (WHERE s.graded) = count(s.discrete_level) FILTER (WHERE s.graded)
                THEN avg(s.discrete_level) FILTER (WHERE s.graded) END AS discrete,
           count(*) FILTER (WHERE s.graded) > count(s.discrete_level) FILTER (WHERE s.graded)
             AS unleveled
    FROM (SELECT scorer, status, value, discrete_level,
                 scorer = $2 AND detail ? 'criteria' AS graded
          FROM scores
          WHERE run_id = sm.run_id AND sample_id = sm.sample_id AND scorer IN ($2, $3)
          ORDER BY scorer, criterion, repetition) s
  ) a
  WHERE sm.run_id = $1
  ORDER BY sm.task_id, sm.candidate_index, sm.sample_id`;

const COPY_SELECTIONS =
  "COPY selections (run_id, task_id, method, candidates, selected_index, selected_sample_id, " +
  "tie, discrete_tie, tie_break, selected_correct, first_correct, any_correct, detail)";

/**
 * Replaces the run's selections in one transaction: a reader sees the earlier selections or
 * the new ones, never a mix, and two passes over one run take turns (advisory lock). The
 * candidates are read once, in task order, a fetch at a time; `choose` sees whole tasks
 * only, and what it returns is loaded with COPY. Memory holds one fetch, however large
 * the run. Returns the number of selections stored.
 */
export function replaceSelections(
  driver: StoreDriver,
  runId: string,
  query: CandidateQuery,
  choose: ChooseSelections,
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
    await tx.query(DECLARE, [runId, query.verifierScorer, query.checkScorer ?? null]);
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
      const last = rows.length < fetchRows;
      // The server finds the next rows while this batch is selected (same connection,
      // so the COPY below queues behind that fetch).
      if (!last) next = fetch();
      const tasks = assembler.add(rows, last);
      if (tasks.length > 0) stored += await copySelections(tx, runId, await choose(tasks, lookup));
      if (last) return stored;
    }
  });
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
