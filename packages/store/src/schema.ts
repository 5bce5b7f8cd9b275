import { RESULT_KEY_FIELDS, type ResultKeyField } from "@assay/core";
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  doublePrecision,
  index,
  integer,
  jsonb,
  type PgColumn,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
} from "drizzle-orm/pg-core";

// No pgSchema(): tables live in whatever schema `search_path` names, so each test can use
// its own throwaway schema on one shared server.

const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();

/** The result key's columns (RESULT_KEY_FIELDS), for the tables that hold a row per result. */
const resultKeyColumns = () =>
  ({
    runId: text("run_id").notNull(),
    sampleId: text("sample_id").notNull(),
    scorer: text("scorer").notNull(),
    criterion: text("criterion").notNull().default(""),
    repetition: integer("repetition").notNull().default(0),
  }) satisfies Record<ResultKeyField, unknown>;

/** A table's result key columns, in RESULT_KEY_FIELDS order: its primary key. */
export function resultKeyOf<C extends PgColumn>(table: Record<ResultKeyField, C>): [C, ...C[]] {
  const [first, ...rest] = RESULT_KEY_FIELDS.map((field) => table[field]);
  return [first as C, ...rest];
}

export const runs = pgTable(
  "runs",
  {
    id: text("id").primaryKey(),
    name: text("name"),
    dataset: text("dataset"),
    spec: jsonb("spec").notNull(),
    transport: text("transport").notNull(),
    createdAt: createdAt(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
    plannedResults: bigint("planned_results", { mode: "number" }),
    /**
     * Of those, results a model call scores (verifier, pairwise judge). 0: the run's
     * verification cost nothing; null: not recorded (runs made before it was).
     */
    plannedModelResults: bigint("planned_model_results", { mode: "number" }),
    // What the run was made from, so that a resume with another dataset or spec is
    // refused instead of mixed in. Null on runs created before these were recorded.
    /** The dataset's path with links resolved (`dataset` holds it as given). */
    datasetPath: text("dataset_path"),
    /** The dataset's size when the run last opened it. */
    datasetBytes: bigint("dataset_bytes", { mode: "number" }),
    /** sha256 of the dataset's first `dataset_hashed_bytes` bytes: all that was read. */
    datasetSha256: text("dataset_sha256"),
    datasetHashedBytes: bigint("dataset_hashed_bytes", { mode: "number" }),
    /** sha256 of the resolved spec as JSON with sorted keys. */
    specSha256: text("spec_sha256"),
    // The pass rule, worked out from the stored spec by the database itself, so it always
    // says what the spec says (runs created before it included): a result passes when
    // `value >= coalesce(pass_thresholds ->> scorer, pass_threshold)`.
    /** `pass.threshold`, default 0.5. */
    passThreshold: doublePrecision("pass_threshold")
      .notNull()
      .generatedAlwaysAs(sql`coalesce((spec #>> '{pass,threshold}')::float8, 0.5)`),
    /** Per scorer key: `pass.scorers`, and the selection's `check` at `selection.threshold`. */
    passThresholds: jsonb("pass_thresholds")
      .notNull()
      .generatedAlwaysAs(
        sql`CASE WHEN spec #>> '{selection,check}' IS NULL THEN coalesce(spec #> '{pass,scorers}', '{}'::jsonb) ELSE jsonb_set(coalesce(spec #> '{pass,scorers}', '{}'::jsonb), ARRAY[spec #>> '{selection,check}'], spec #> '{selection,threshold}') END`,
      ),
    /** Whether a selection decides solved tasks (else the pass rule does). */
    hasSelection: boolean("has_selection").notNull().generatedAlwaysAs(sql`spec ? 'selection'`),
    /** `pass.solved_by`: the scorer key deciding solved tasks without selection (null: all). */
    solvedBy: text("solved_by").generatedAlwaysAs(sql`spec #>> '{pass,solved_by}'`),
    /**
     * When `assay prune` dropped the run's raw rows (its partitions); its rollups remain.
     * Null: the raw rows are there.
     */
    prunedAt: timestamp("pruned_at", { withTimezone: true }),
    // Set by `assay abandon`: the run will never finish; completion refuses it, reports and
    // trends show it as abandoned, and `assay prune` drops its raw rows.
    abandonedAt: timestamp("abandoned_at", { withTimezone: true }),
  },
  // Report trends: "the last N runs" and "the last N runs named X", newest first.
  (t) => [
    index("runs_created_idx").on(t.createdAt),
    index("runs_name_created_idx").on(t.name, t.createdAt),
  ],
);

// The per-run raw tables (RUN_PARTITIONED_TABLES) are partitioned by LIST on run_id, one
// partition per run, made when the run starts (migration 0015, `assay_create_run_partitions`),
// so that pruning a run drops its partitions instead of deleting millions of rows.
// drizzle-kit knows nothing of partitions: the definitions below are the parents'.

export const samples = pgTable(
  "samples",
  {
    runId: text("run_id").notNull(),
    sampleId: text("sample_id").notNull(),
    taskId: text("task_id").notNull(),
    candidateIndex: integer("candidate_index").notNull(),
    label: boolean("label"),
    line: integer("line").notNull(),
    metadata: jsonb("metadata").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.runId, t.sampleId] }),
    index("samples_run_task_idx").on(t.runId, t.taskId),
  ],
);

/**
 * One row per result; the primary key is the exactly-once result key (docs/architecture.md,
 * "Delivery and storage").
 */
export const scores = pgTable(
  "scores",
  {
    ...resultKeyColumns(),
    rule: text("rule").notNull(),
    status: text("status", { enum: ["scored", "unscored"] }).notNull(),
    value: doublePrecision("value"),
    reason: text("reason"),
    detail: jsonb("detail"),
    /**
     * `discreteScoreOf(detail)`, worked out when the row is written, for rows whose detail
     * has `criteria`: selection reads this number instead of the distributions. Null when
     * the detail holds no distribution, or the row was written before this column.
     */
    discreteLevel: doublePrecision("discrete_level"),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: resultKeyOf(t) }),
    check("scores_status_check", sql`${t.status} in ('scored', 'unscored')`),
    // Early stops read only a run's trajectories (`detail.progress`); without this index
    // they scan every score of the run.
    index("scores_progress_idx")
      .on(t.runId)
      .where(sql`jsonb_typeof(detail -> 'progress') = 'array'`),
  ],
);

export const inputErrors = pgTable(
  "input_errors",
  {
    runId: text("run_id").notNull(),
    file: text("file").notNull(),
    line: integer("line").notNull(),
    field: text("field").notNull(),
    message: text("message").notNull(),
    createdAt: createdAt(),
  },
  (t) => [unique("input_errors_run_file_line_key").on(t.runId, t.file, t.line)],
);

/**
 * How the verifier fitted each prompt it built: one row per prompt, cut or not. A row
 * belongs to the score with the same run, sample and scorer; `criterion` and `repetition`
 * name the prompt (criterion "" for a scorer with a single criterion, as on the score row,
 * so with one prompt variant the whole key is the score's).
 */
export const truncations = pgTable(
  "truncations",
  {
    ...resultKeyColumns(),
    originalTokens: integer("original_tokens").notNull(),
    keptTokens: integer("kept_tokens").notNull(),
    droppedTokens: integer("dropped_tokens").notNull(),
    slot: text("slot").notNull(),
    policy: text("policy").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: resultKeyOf(t) }),
    // The analyst view of truncations lists only prompts cut or refused, most tokens dropped
    // first: without this index it reads and sorts every prompt of the run.
    index("truncations_cut_idx")
      .on(t.runId, t.droppedTokens.desc().nullsFirst())
      .where(sql`dropped_tokens > 0 OR kept_tokens = 0`),
  ],
);

/** Token and compute usage for cost reports; `scorer` is '' for the generator's row. */
export const usage = pgTable(
  "usage",
  {
    runId: text("run_id").notNull(),
    sampleId: text("sample_id").notNull(),
    role: text("role", { enum: ["generator", "verifier"] }).notNull(),
    model: text("model").notNull(),
    inputTokens: integer("input_tokens").notNull(),
    cachedInputTokens: integer("cached_input_tokens").notNull(),
    /** Input tokens written to a prompt cache, apart from the two above. */
    cacheWriteTokens: integer("cache_write_tokens").notNull().default(0),
    /** The part of `cache_write_tokens` written to a 1-hour cache (priced at its own rate). */
    cacheWrite1hTokens: integer("cache_write_1h_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull(),
    computeMs: doublePrecision("compute_ms"),
    device: text("device"),
    scorer: text("scorer").notNull().default(""),
    /** Verifier: prompts scored (each ran in a pass). Null: the generator, or not counted. */
    prompts: integer("prompts"),
    /**
     * Verifier: this job's share of the forward passes run (each pass split evenly over
     * its rows, so a run's shares add up to its passes). Null: the generator, or not counted.
     */
    forwardPasses: doublePrecision("forward_passes"),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.runId, t.sampleId, t.role, t.scorer] }),
    check("usage_role_check", sql`${t.role} in ('generator', 'verifier')`),
  ],
);

/**
 * One row per task: the candidate selection picked (best-of-N or pivot tournament), the
 * evidence it used (`detail`: scores, pairwise probabilities, ranking) and the correctness
 * flags behind pass@1, selected and oracle accuracy. Rewritten when selection reruns.
 */
export const selections = pgTable(
  "selections",
  {
    runId: text("run_id").notNull(),
    taskId: text("task_id").notNull(),
    method: text("method").notNull(),
    candidates: integer("candidates").notNull(),
    selectedIndex: integer("selected_index"),
    selectedSampleId: text("selected_sample_id"),
    tie: boolean("tie").notNull(),
    discreteTie: boolean("discrete_tie"),
    tieBreak: text("tie_break"),
    selectedCorrect: boolean("selected_correct"),
    firstCorrect: boolean("first_correct"),
    anyCorrect: boolean("any_correct"),
    detail: jsonb("detail").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.taskId] })],
);

// Rollups: a finished run's report figures, written once when it completes (and again when
// it resumes, retries or reruns selection), so a report reads a few rows per run however
// many raw rows the run has. Raw rows stay for drill-down. A run without a `run_rollups`
// row (still running, or its selection was just rewritten) is reported from raw rows.

/** One row per rolled-up run: counts, selection accuracy and truncation per input length. */
export const runRollups = pgTable("run_rollups", {
  runId: text("run_id").primaryKey(),
  samples: bigint("samples", { mode: "number" }).notNull(),
  tasks: bigint("tasks", { mode: "number" }).notNull(),
  /** Score rows of the run, scored or not. */
  results: bigint("results", { mode: "number" }).notNull(),
  selectedTasks: bigint("selected_tasks", { mode: "number" }).notNull(),
  unselected: bigint("unselected", { mode: "number" }).notNull(),
  methods: text("methods").array().notNull(),
  /** Tasks counted in pass@1, selected and oracle; the three counts below are of them. */
  counted: bigint("counted", { mode: "number" }).notNull(),
  pass1: bigint("pass1", { mode: "number" }).notNull(),
  selected: bigint("selected", { mode: "number" }).notNull(),
  oracle: bigint("oracle", { mode: "number" }).notNull(),
  ties: bigint("ties", { mode: "number" }).notNull(),
  discreteTies: bigint("discrete_ties", { mode: "number" }).notNull(),
  discreteOf: bigint("discrete_of", { mode: "number" }).notNull(),
  /**
   * Verifier calls per input-length bucket (INPUT_LENGTH_EDGES), and of them the ones cut to
   * fit and the ones refused (nothing kept).
   */
  truncationCalls: bigint("truncation_calls", { mode: "number" }).array().notNull(),
  truncationCut: bigint("truncation_cut", { mode: "number" }).array().notNull(),
  truncationRefused: bigint("truncation_refused", { mode: "number" }).array().notNull(),
  /** Tasks solved (docs/figures.md, "Pass and solved"); null in rollups written before it. */
  solved: bigint("solved", { mode: "number" }),
  /**
   * Whether `task_rollup_chunks` and `slice_rollups` were written with this row: false in
   * rollups written before them, whose comparisons and slices read raw rows.
   */
  tasksRolledUp: boolean("tasks_rolled_up").notNull().default(false),
  /**
   * The run whose comparison with this one was rolled up with this row (`comparison_rollups`):
   * the run completed last before it under the same name. Null when there was none.
   */
  comparedWith: text("compared_with"),
  /**
   * The baseline pinned for the run's name (`run_baselines`) that its comparison was also
   * rolled up with, when that is another run than `comparedWith`. Null when none was.
   */
  comparedWithPinned: text("compared_with_pinned"),
  rolledUpAt: timestamp("rolled_up_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * `report <run> --compare <its predecessor>` (and `<its name's pinned baseline>`) counted at
 * completion: the paired-difference
 * counts of paired-differences.ts, in the order it gives them, so the morning's comparison
 * reads a few rows per figure instead of joining two runs' tasks.
 */
export const comparisonRollups = pgTable(
  "comparison_rollups",
  {
    runId: text("run_id").notNull(),
    baselineRunId: text("baseline_run_id").notNull(),
    position: integer("position").notNull(),
    kind: text("kind").notNull(),
    metric: text("metric").notNull(),
    /**
     * The reported run's value minus the baseline's, for `tasks` paired tasks; nullable as
     * the query's own columns are (a task mean over null values).
     */
    difference: doublePrecision("difference"),
    tasks: bigint("tasks", { mode: "number" }).notNull(),
    currentSum: doublePrecision("current_sum"),
    baselineSum: doublePrecision("baseline_sum"),
    /** Σ difference² on a figure's one row where its differences were summed, else null. */
    squareSum: doublePrecision("square_sum"),
  },
  (t) => [
    primaryKey({ columns: [t.runId, t.baselineRunId, t.position] }),
    index("comparison_rollups_baseline_idx").on(t.baselineRunId),
  ],
);

/**
 * The run each name's later runs are compared with at completion besides the one before
 * them (`assay baseline <run-id>`): a release or reference run a morning report keeps
 * comparing with, counted once per run instead of pairing two runs' tasks at report time.
 */
export const runBaselines = pgTable("run_baselines", {
  name: text("name").primaryKey(),
  runId: text("run_id").notNull(),
  pinnedAt: timestamp("pinned_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * A dense number for every task id any run rolled up (task-rollup-chunks.ts): slot
 * `task_index % TASK_CHUNK` of chunk `task_index / TASK_CHUNK` in `task_rollup_chunks`, the
 * same slot in every run, so two runs pair their tasks by position instead of by key.
 */
export const taskKeys = pgTable("task_keys", {
  taskId: text("task_id").primaryKey(),
  taskIndex: integer("task_index")
    .notNull()
    .generatedAlwaysAsIdentity({ startWith: 0, minValue: 0 }),
});

/**
 * A rolled-up run's per-task figures, TASK_CHUNK tasks (by `task_keys.task_index`) a row:
 * for kind `scorer`, each task's mean scored value under scorer `figure`; for kind
 * `accuracy` (figure ''), each counted task's pass@1, selected and oracle as bits 0, 1 and 2.
 * A task the run has no such figure for is null in its slot. What `report --compare` pairs
 * two runs on; partitioned by run like the raw tables, so prune drops it.
 */
export const taskRollupChunks = pgTable(
  "task_rollup_chunks",
  {
    runId: text("run_id").notNull(),
    kind: text("kind").notNull(),
    figure: text("figure").notNull(),
    chunk: integer("chunk").notNull(),
    slots: doublePrecision("slots").array().notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.kind, t.figure, t.chunk] })],
);

/**
 * The figures `report --by metadata.<field>` prints, per value of each field the spec's
 * `fields.metadata` declares: the slice report's query rows of that value, as queried.
 */
export const sliceRollups = pgTable(
  "slice_rollups",
  {
    runId: text("run_id").notNull(),
    /** The metadata key, as `--by metadata.<field>` names it. */
    field: text("field").notNull(),
    position: integer("position").notNull(),
    /** The slice's value; null for the samples without the field. */
    value: text("value"),
    figures: jsonb("figures").notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.field, t.position] })],
);

/** Unscored results of a rolled-up run, per reason. */
export const unscoredRollups = pgTable(
  "unscored_rollups",
  {
    runId: text("run_id").notNull(),
    reason: text("reason").notNull(),
    count: bigint("count", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.reason] })],
);

/** Each scorer's scored results of a rolled-up run, in ten value bins. */
export const histogramRollups = pgTable(
  "histogram_rollups",
  {
    runId: text("run_id").notNull(),
    scorer: text("scorer").notNull(),
    scored: bigint("scored", { mode: "number" }).notNull(),
    counts: bigint("counts", { mode: "number" }).array().notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.scorer] })],
);

/** Each scorer's results of a rolled-up run under the run's pass rule. */
export const passRollups = pgTable(
  "pass_rollups",
  {
    runId: text("run_id").notNull(),
    scorer: text("scorer").notNull(),
    scored: bigint("scored", { mode: "number" }).notNull(),
    unscored: bigint("unscored", { mode: "number" }).notNull(),
    passed: bigint("passed", { mode: "number" }).notNull(),
    threshold: doublePrecision("threshold").notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.scorer] })],
);

/** Token and compute sums of a rolled-up run per role and model (priced at report time). */
export const usageRollups = pgTable(
  "usage_rollups",
  {
    runId: text("run_id").notNull(),
    role: text("role").notNull(),
    model: text("model").notNull(),
    inputTokens: bigint("input_tokens", { mode: "number" }).notNull(),
    cachedInputTokens: bigint("cached_input_tokens", { mode: "number" }).notNull(),
    cacheWriteTokens: bigint("cache_write_tokens", { mode: "number" }).notNull().default(0),
    cacheWrite1hTokens: bigint("cache_write_1h_tokens", { mode: "number" }).notNull().default(0),
    outputTokens: bigint("output_tokens", { mode: "number" }).notNull(),
    computeMs: doublePrecision("compute_ms"),
    rows: bigint("rows", { mode: "number" }).notNull(),
    /**
     * A generator model's solved tasks: those whose deciding candidate (the selected one,
     * else the first) it generated. Null for a verifier, and for runs rolled up before it.
     */
    solved: bigint("solved", { mode: "number" }),
  },
  (t) => [primaryKey({ columns: [t.runId, t.role, t.model] })],
);

/**
 * Figures computed in TypeScript from many raw rows (calibration per verifier scorer and
 * criterion, self-preference per scorer and family), kept as the report shows them.
 */
export const summaryRollups = pgTable(
  "summary_rollups",
  {
    runId: text("run_id").notNull(),
    kind: text("kind", { enum: ["calibration", "self_preference"] }).notNull(),
    position: integer("position").notNull(),
    summary: jsonb("summary").notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.kind, t.position] })],
);

/**
 * Early stops of a rolled-up run for one setting (falls in a row, smallest fall), the one
 * reports ask for unless told otherwise: how many trajectories qualify. Another setting,
 * or a run without this row, is computed from raw rows.
 */
export const earlyStopRollups = pgTable("early_stop_rollups", {
  runId: text("run_id").primaryKey(),
  fallSteps: integer("fall_steps").notNull(),
  minFall: doublePrecision("min_fall").notNull(),
  total: bigint("total", { mode: "number" }).notNull(),
});

/** The first early-stop candidates of a rolled-up run, in the order reports list them. */
export const earlyStopCandidateRollups = pgTable(
  "early_stop_candidate_rollups",
  {
    runId: text("run_id").notNull(),
    position: integer("position").notNull(),
    sampleId: text("sample_id").notNull(),
    taskId: text("task_id").notNull(),
    scorer: text("scorer").notNull(),
    fromStep: integer("from_step").notNull(),
    falls: integer("falls").notNull(),
    progress: jsonb("progress").notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.position] })],
);

/**
 * One `assay prices import`: a whole price table, in force from `effective_from` until the
 * next version's. A run is priced by the version in force when it started.
 */
export const priceVersions = pgTable(
  "price_versions",
  {
    version: integer("version").primaryKey().generatedAlwaysAsIdentity(),
    effectiveFrom: timestamp("effective_from", { withTimezone: true }).notNull(),
    currency: text("currency").notNull(),
    /** Where the prices came from (the file imported, unless told otherwise). */
    source: text("source").notNull(),
    importedAt: timestamp("imported_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("price_versions_effective_idx").on(t.effectiveFrom)],
);

/** A model's prices in one version; per million tokens, or per GPU-hour of measured compute. */
export const prices = pgTable(
  "prices",
  {
    version: integer("version").notNull(),
    model: text("model").notNull(),
    inputPerMillion: doublePrecision("input_per_million"),
    /** Null: the input price (no cache discount), as `report --prices` reads it. */
    cachedInputPerMillion: doublePrecision("cached_input_per_million"),
    cacheWritePerMillion: doublePrecision("cache_write_per_million"),
    /** Null: the cache-write price, else the input price. */
    cacheWrite1hPerMillion: doublePrecision("cache_write_1h_per_million"),
    outputPerMillion: doublePrecision("output_per_million"),
    gpuHour: doublePrecision("gpu_hour"),
  },
  (t) => [primaryKey({ columns: [t.version, t.model] })],
);

/**
 * Answers read from batch-generation outputs (`--answers`), staged before the reference
 * dataset is read so that the join looks each chunk of ids up in one query instead of
 * holding either file in memory. One row per custom id; the first line that gave it wins
 * and a later one is a duplicate. `outcome` is `answered`, or why the request gave no
 * answer (`errored`, `canceled`, `expired`); `matched` is set once a reference row took it.
 */
export const answerStaging = pgTable(
  "answer_staging",
  {
    runId: text("run_id").notNull(),
    customId: text("custom_id").notNull(),
    file: text("file").notNull(),
    line: integer("line").notNull(),
    outcome: text("outcome").notNull(),
    /** Why a request gave no answer, as its output said; '' when answered. */
    reason: text("reason").notNull(),
    model: text("model"),
    /** The answer texts, one per choice; empty when the request gave none. */
    choices: jsonb("choices").notNull(),
    /** Uncached input tokens (the store's convention: cached ones are counted apart). */
    inputTokens: integer("input_tokens"),
    cachedInputTokens: integer("cached_input_tokens"),
    cacheWriteTokens: integer("cache_write_tokens"),
    cacheWrite1hTokens: integer("cache_write_1h_tokens"),
    outputTokens: integer("output_tokens"),
    matched: boolean("matched").notNull().default(false),
  },
  (t) => [primaryKey({ columns: [t.runId, t.customId] })],
);

/**
 * What joining a run's answers to its reference dataset came to, written when a complete
 * pass over the reference ends, so that the summary and the report can show it.
 */
export const answerJoins = pgTable("answer_joins", {
  runId: text("run_id").primaryKey(),
  /**
   * The `--answers-id-prefix` the join read custom ids with ('' for none), so `assay show`
   * finds a sample's staged answer. Null for joins recorded before it was kept.
   */
  idPrefix: text("id_prefix"),
  /** Reference rows that took an answer. */
  joined: bigint("joined", { mode: "number" }).notNull(),
  /** Reference rows with no usable answer (none given, or its request failed). */
  missingAnswers: bigint("missing_answers", { mode: "number" }).notNull(),
  /** Answer lines whose custom id names no reference row. */
  unmatchedAnswers: bigint("unmatched_answers", { mode: "number" }).notNull(),
  /** Requests that errored, were canceled or expired. */
  failedRequests: bigint("failed_requests", { mode: "number" }).notNull(),
  /** Answer lines whose custom id an earlier line gave. */
  duplicateAnswers: bigint("duplicate_answers", { mode: "number" }).notNull(),
  /**
   * Failed lines of a request another line of its custom id answered (a retry), or that
   * failed again after the line counted as its failure.
   */
  retriedFailures: bigint("retried_failures", { mode: "number" }).notNull().default(0),
  /**
   * Tokens billed for answer lines that joined no row (unmatched, duplicate), per model:
   * `[{model, lines, inputTokens, cachedInputTokens, cacheWriteTokens, outputTokens}]`.
   */
  unjoinedUsage: jsonb("unjoined_usage").notNull().default([]),
});

/**
 * The producer of a distributed run, as its last look left it: where it runs, how far it
 * has read, when it last said so, and the command that resumes it. `assay status` reads it
 * to show a run's progress while it is still being read, to name a producer that stopped
 * heartbeating, and to find the run's queues. One row per run: a resumed produce takes it
 * over.
 */
export const runProducers = pgTable("run_producers", {
  runId: text("run_id").primaryKey(),
  /** `host:pid` of the producer process. */
  producer: text("producer").notNull(),
  /** `--queue-prefix` the run's jobs were enqueued under. */
  queuePrefix: text("queue_prefix").notNull(),
  /** The `assay produce` command that resumes the run, as it can be pasted into a shell. */
  resumeCommand: text("resume_command").notNull(),
  /** The queue of each model the spec's GPU scorers name, and the model as workers load it. */
  modelQueues: jsonb("model_queues").notNull().default([]),
  /** `reading`, `planned` (every line read and enqueued), `stopped` (a signal) or `failed`. */
  state: text("state").notNull(),
  /** Why a producer stopped or failed. */
  reason: text("reason"),
  startedAt: timestamp("started_at", { withTimezone: true }).notNull(),
  /** When the producer last recorded its progress; it does every few seconds while alive. */
  heartbeatAt: timestamp("heartbeat_at", { withTimezone: true }).notNull(),
  /** Bytes of the dataset read (a resumed producer reads from the start again). */
  bytesRead: bigint("bytes_read", { mode: "number" }).notNull(),
  /** Seconds the producer had been reading at its last record, by its own clock. */
  readSeconds: doublePrecision("read_seconds").notNull(),
  /** The dataset's size in bytes as stored (compressed for gzip/zstd). */
  bytesTotal: bigint("bytes_total", { mode: "number" }).notNull(),
  jobsEnqueued: bigint("jobs_enqueued", { mode: "number" }).notNull(),
  inputErrors: bigint("input_errors", { mode: "number" }).notNull(),
});

/**
 * The version of `migrations/analyst-views.sql` last applied to this store, and its text's
 * sha256, in one row: a version applies its file over an older one, never over a newer
 * one (analyst-views.ts).
 */
export const analystViewsApplied = pgTable("analyst_views_applied", {
  version: integer("version").primaryKey(),
  sha256: text("sha256").notNull(),
  appliedAt: timestamp("applied_at", { withTimezone: true }).notNull().defaultNow(),
});
