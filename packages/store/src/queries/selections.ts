import type { CandidateQuery, SelectionRecord, TaskCandidates } from "@assay/core";
import { type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type pg from "pg";
import { columnList } from "../bulk/column-list.js";
import { copyText } from "../bulk/copy-text.js";
import { pairScores } from "../reports/pair-scores.js";
import { dropRollups } from "../reports/rollups/write-rollups.js";
import { samples, scores, selections } from "../schema.js";
import { pgRunner } from "../sql-runner.js";
import { inlinedSql, sqlQuery } from "../sql-text.js";
import type { StoreDriver } from "../store-driver.js";
import { inTransaction, type TransactionRunner } from "../transaction.js";
import { connectAlone, copyBatches, cursorBatches, type RowBatches } from "./candidate-batches.js";
import { candidateOrder } from "./candidate-order.js";
import {
  decodeBoolean,
  decodeJson,
  decodeNumber,
  decodeText,
  type FieldDecoder,
} from "./copy-text-rows.js";
import { TaskAssembler } from "./task-assembler.js";

export interface ReplaceSelectionsOptions {
  /** Most rows (candidates) handed to selection at once. Default 10,000. */
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

/** A pass's parameters, as the queries below take them. */
interface PassParams {
  runId: string;
  verifier: string;
  check: string | null;
}

// Aliases: a query names one in FROM after its table (`${samples} ${sm}`).
const sm = alias(samples, "sm");
/** The run's verifier and check rows (`scoreRows`), as the aggregates read them. */
const s = alias(scores, "s");
const r = alias(scores, "r");
const graded = sql.raw("s.graded");

/**
 * The columns of a candidate row, in the order TaskAssembler reads them, each with how the
 * streamed read decodes its COPY text.
 */
const candidateColumns = (p: PassParams): { value: SQL; decode: FieldDecoder }[] => [
  { value: sql`${sm.taskId}`, decode: decodeText },
  { value: sql`${sm.sampleId}`, decode: decodeText },
  { value: sql`${sm.candidateIndex}`, decode: decodeNumber },
  { value: sql`${sm.label}`, decode: decodeBoolean },
  { value: sql`a.verifier_score`, decode: decodeNumber },
  { value: sql`a.check_value`, decode: decodeNumber },
  { value: sql`a.discrete`, decode: decodeNumber },
  {
    value: sql`CASE WHEN a.unleveled THEN (
      SELECT jsonb_agg(COALESCE(to_jsonb(${r.discreteLevel}),
                                jsonb_path_query_array(${r.detail}, ${sql.raw(`'${DISTRIBUTIONS}'`)}, '{}', true))
                       ORDER BY ${r.criterion}, ${r.repetition})
      FROM ${scores} ${r}
      WHERE ${r.runId} = ${sm.runId} AND ${r.sampleId} = ${sm.sampleId} AND ${r.scorer} = ${p.verifier}
        AND ${r.detail} ? 'criteria') END AS distributions`,
    decode: decodeJson,
  },
  { value: sql`${sm.line}`, decode: decodeNumber },
];

/** The sample-order read's last column: this row's task id is lower than the row before's. */
const TASK_CAME_BACK = candidateColumns({ runId: "", verifier: "", check: null }).length;

const sampleAggregates = (p: PassParams) => sql`
  CASE WHEN bool_and(${s.status} = 'scored') FILTER (WHERE ${s.scorer} = ${p.verifier})
       THEN avg(${s.value}) FILTER (WHERE ${s.scorer} = ${p.verifier}) END AS verifier_score,
  CASE WHEN bool_and(${s.status} = 'scored') FILTER (WHERE ${s.scorer} = ${p.check})
       THEN avg(${s.value}) FILTER (WHERE ${s.scorer} = ${p.check}) END AS check_value,
  CASE WHEN count(*) FILTER (WHERE ${graded}) = count(${s.discreteLevel}) FILTER (WHERE ${graded})
       THEN avg(${s.discreteLevel}) FILTER (WHERE ${graded}) END AS discrete,
  count(*) FILTER (WHERE ${graded}) > count(${s.discreteLevel}) FILTER (WHERE ${graded}) AS unleveled`;

/** The run's verifier and check rows, as the aggregates read them; `where` narrows them. */
const scoreRows = (p: PassParams, where: SQL, order: SQL) => sql`
  SELECT ${scores.sampleId}, ${scores.scorer}, ${scores.status}, ${scores.value}, ${scores.discreteLevel},
         ${scores.scorer} = ${p.verifier} AND ${scores.detail} ? 'criteria' AS graded
  FROM ${scores}
  WHERE ${scores.runId} = ${p.runId} AND ${where} AND ${scores.scorer} IN (${p.verifier}, ${p.check})
  ORDER BY ${order}`;

const selectCandidates = (p: PassParams) =>
  sql.join(
    candidateColumns(p).map((column) => column.value),
    sql`, `,
  );

// Usually a run's tasks are contiguous in sample id order (a line's candidates are
// `<id>#<n>` of task `<id>`): then the scores are read as one range of their primary key,
// folded per sample and merged with the samples in that order, a stream with no sort and
// no hash. A row says whether its task id is lower than the row before's (true, else null,
// which costs the client nothing to decode): along a sequence whose task ids never go back,
// equal ones are side by side, so every task is contiguous. When one goes back, the pass is
// undone and made again in task order, each sample's rows found by a primary-key lookup:
// also a stream, but it costs the server half as much again (bench:selection's 1M
// candidates: 29 against 19 µs per task; the whole pass, 1.4× the wall time). Either way
// the server's memory stays flat.
const inSampleOrder = (p: PassParams) => sql`
  SELECT ${selectCandidates(p)},
         CASE WHEN ${sm.taskId} < lag(${sm.taskId}) OVER (ORDER BY ${sm.sampleId}) THEN true END
           AS task_came_back
  FROM ${samples} ${sm}
  LEFT JOIN (
    SELECT ${s.sampleId}, ${sampleAggregates(p)}
    FROM (${scoreRows(p, sql`true`, sql`${scores.sampleId}, ${scores.scorer}, ${scores.criterion}, ${scores.repetition}`)}) s
    GROUP BY ${s.sampleId}
  ) a ON a.sample_id = ${sm.sampleId}
  WHERE ${sm.runId} = ${p.runId}
  ORDER BY ${sm.sampleId}`;

const inTaskOrder = (p: PassParams) => sql`
  SELECT ${selectCandidates(p)}
  FROM ${samples} ${sm}
  CROSS JOIN LATERAL (
    SELECT ${sampleAggregates(p)}
    FROM (${scoreRows(p, sql`${scores.sampleId} = ${sm.sampleId}`, sql`${scores.scorer}, ${scores.criterion}, ${scores.repetition}`)}) s
  ) a
  WHERE ${sm.runId} = ${p.runId}
  ORDER BY ${sql.raw(candidateOrder("sm"))}`;

const candidatesIn = (order: Order, p: PassParams): SQL =>
  order === "sample" ? inSampleOrder(p) : inTaskOrder(p);

// A cursor's plan is made for its first rows by default (cursor_tuple_fraction 0.1), which
// favours a lookup per sample; every row is read here. Compiling the plan (JIT) costs more
// than it saves on these queries (~0.3 s at 1M candidates).
const PLAN_FOR_EVERY_ROW =
  "SELECT set_config('cursor_tuple_fraction', '1', true), set_config('jit', 'off', true)";

/** The columns a selection fills (all but the time it was made). */
const SELECTION_COLUMNS = columnList(selections, [
  "runId",
  "taskId",
  "method",
  "candidates",
  "selectedIndex",
  "selectedSampleId",
  "tie",
  "discreteTie",
  "tieBreak",
  "selectedCorrect",
  "firstCorrect",
  "anyCorrect",
  "detail",
]);

const COPY_SELECTIONS = `COPY ${SELECTION_COLUMNS.table} (${SELECTION_COLUMNS.names.join(", ")})`;

type Order = "sample" | "task";

/** Where a pass reads its candidates and looks up pair judgments. */
interface PassIo {
  batches(order: Order): RowBatches;
  lookup: ScoreLookup;
  close(): Promise<void>;
}

/**
 * Replaces the run's selections in one transaction: a reader sees the earlier selections or
 * the new ones, never a mix, and two passes over one run take turns (advisory lock). The
 * candidates are read once, in batches; each batch's whole tasks go to the pass's `choose`,
 * and what it returns is loaded by COPY. On Postgres the candidates stream from a second
 * connection (`COPY … TO STDOUT`) while one COPY on the pass's own connection loads the
 * selections; on PGlite a cursor reads them. Memory holds a batch or two, however large the
 * run. A pass in sample id order that finds a task out of place is undone (savepoint) and
 * `startPass` is called again for a pass in task order. Returns the number of selections
 * stored.
 */
export function replaceSelections(
  driver: StoreDriver,
  runId: string,
  query: CandidateQuery,
  startPass: SelectionPass,
  options: ReplaceSelectionsOptions = {},
): Promise<number> {
  const batchRows = checkedFetchRows(options.fetchRows ?? 10_000);
  const params: PassParams = {
    runId,
    verifier: query.verifierScorer,
    check: query.checkScorer ?? null,
  };
  return inTransaction(driver, async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtextextended('assay.selections:' || $1, 0))", [
      runId,
    ]);
    await tx.query("DELETE FROM selections WHERE run_id = $1", [runId]);
    // The run's rollups hold its accuracy: reports read raw rows until they are rewritten.
    await dropRollups(tx, runId);
    const io =
      driver.kind === "postgres"
        ? streamedIo(driver.pool.options, runId, params, batchRows)
        : await cursorIo(tx, runId, params, batchRows);
    try {
      const pass = (order: Order) =>
        selectAll(tx, runId, io.batches(order), io.lookup, startPass());
      await tx.query("SAVEPOINT sample_order");
      const stored = await pass("sample");
      if (stored !== undefined) return stored;
      await tx.query("ROLLBACK TO SAVEPOINT sample_order");
      return (await pass("task")) ?? 0;
    } finally {
      await io.close();
    }
  });
}

async function cursorIo(
  tx: TransactionRunner,
  runId: string,
  params: PassParams,
  rows: number,
): Promise<PassIo> {
  await tx.query(PLAN_FOR_EVERY_ROW);
  const declare = (order: Order) =>
    sqlQuery(sql`DECLARE run_candidates NO SCROLL CURSOR FOR ${candidatesIn(order, params)}`);
  return {
    batches: (order) => {
      const { text, params: values } = declare(order);
      return cursorBatches(tx, text, values, rows);
    },
    lookup: (scorer, ids) => pairScores(tx, runId, scorer, ids),
    close: async () => {},
  };
}

// The pass's own connection is busy with its COPY from start to end: pair judgments are
// looked up on a third connection, opened the first time one is needed.
function streamedIo(
  pool: pg.ClientConfig,
  runId: string,
  params: PassParams,
  rows: number,
): PassIo {
  // Named, so that pg_stat_activity says what they are and for which run.
  const connection = { ...pool, application_name: `assay selection: ${runId}` };
  let lookups: Promise<pg.Client> | undefined;
  return {
    batches: (order) => {
      const decoders = candidateColumns(params).map((column) => column.decode);
      // Only the sample-order read has the task_came_back column.
      if (order === "sample") decoders.push(decodeBoolean);
      // COPY takes no parameters: its query gets them as quoted literals.
      return copyBatches(connection, inlinedSql(candidatesIn(order, params)), decoders, rows);
    },
    lookup: async (scorer, ids) => {
      lookups ??= connectAlone(connection);
      return pairScores(pgRunner(await lookups), runId, scorer, ids);
    },
    close: async () => {
      // One that failed to open has already said so to the lookup that opened it.
      await lookups?.then(
        (client) => client.end(),
        () => {},
      );
    },
  };
}

/**
 * One pass through `batches`: the selections stored, or undefined as soon as a row says
 * its task came back (what this pass loaded is then to be undone).
 */
async function selectAll(
  tx: TransactionRunner,
  runId: string,
  batches: RowBatches,
  lookup: ScoreLookup,
  choose: ChooseSelections,
): Promise<number | undefined> {
  const assembler = new TaskAssembler();
  const sink = tx.openCopy(COPY_SELECTIONS);
  const load = async (tasks: readonly TaskCandidates[]) => {
    if (tasks.length === 0) return;
    const records = await choose(tasks, lookup);
    if (records.length === 0) return;
    const rows = records.map((record) => ({ ...record, runId }));
    for (const text of copyText(SELECTION_COLUMNS, rows)) await sink.write(text);
  };
  try {
    for await (const rows of batches) {
      if (rows.some(taskCameBack)) {
        await sink.abort();
        return undefined;
      }
      await load(assembler.add(rows, false));
    }
    await load(assembler.add([], true));
    return await sink.end();
  } catch (error) {
    await sink.abort();
    throw error;
  }
}

function taskCameBack(row: unknown[]): boolean {
  return row[TASK_CAME_BACK] === true;
}

function checkedFetchRows(rows: number): number {
  if (Number.isInteger(rows) && rows >= 1) return rows;
  throw new RangeError(`Expected \`fetchRows\` to be an integer from 1 and up, got \`${rows}\``);
}
