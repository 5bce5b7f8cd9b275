-- `report --compare` of any two rolled-up runs pairs their tasks by position instead of by
-- key. task_keys numbers every task id once, for every run; task_rollup_chunks holds a run's
-- per-task figures 1,024 task numbers a row, each task in the same slot in every run, so
-- two runs' tasks pair by zipping their chunks (unnest of both arrays) with no join or sort
-- on task ids and no hash table of the run's tasks. It replaces task_score_rollups (0020),
-- a row per task and scorer, whose pairing took ~10 s at 2.5M tasks a run.
CREATE TABLE "task_keys" (
	"task_id" text PRIMARY KEY NOT NULL,
	"task_index" integer GENERATED ALWAYS AS IDENTITY (sequence name "task_keys_task_index_seq" INCREMENT BY 1 MINVALUE 0 MAXVALUE 2147483647 START WITH 0 CACHE 1)
);
--> statement-breakpoint
-- Grows with the run's tasks, so partitioned by run like the raw tables (0015).
CREATE TABLE "task_rollup_chunks" (
	"run_id" text NOT NULL,
	"kind" text NOT NULL,
	"figure" text NOT NULL,
	"chunk" integer NOT NULL,
	"slots" double precision[] NOT NULL,
	CONSTRAINT "task_rollup_chunks_run_id_kind_figure_chunk_pk" PRIMARY KEY("run_id","kind","figure","chunk")
) PARTITION BY LIST ("run_id");
--> statement-breakpoint
DROP TABLE "task_score_rollups" CASCADE;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION assay_run_partitioned_tables() RETURNS text[] LANGUAGE sql IMMUTABLE AS $fn$
  SELECT ARRAY['samples', 'scores', 'truncations', 'usage', 'selections', 'task_rollup_chunks']
$fn$;
--> statement-breakpoint
-- Numbers the run's task ids that no run numbered before. In task id order, so two runs
-- numbering the same new ids at once never wait on each other in a cycle (each waits only
-- for ids the other inserted before the ones it holds). Called on its own, before the run's
-- rollup transaction, so that such a wait lasts one statement, not a whole completion.
CREATE FUNCTION assay_number_run_tasks(run text) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
  samples text := assay_run_partition('samples', run);
BEGIN
  IF to_regclass(quote_ident(samples)) IS NULL THEN RETURN; END IF;
  EXECUTE format(
    'INSERT INTO task_keys (task_id)
     SELECT DISTINCT s.task_id FROM %I s
     WHERE NOT EXISTS (SELECT 1 FROM task_keys k WHERE k.task_id = s.task_id)
     ORDER BY s.task_id
     ON CONFLICT (task_id) DO NOTHING', samples);
END
$fn$;
--> statement-breakpoint
-- One chunk's slots from its tasks' slot numbers (ascending) and figures: figure i in slot
-- positions[i], null in every slot between, none after the last.
CREATE FUNCTION assay_chunk_slots(positions integer[], figures double precision[])
RETURNS double precision[] LANGUAGE sql IMMUTABLE AS $fn$
  SELECT CASE
    WHEN positions[cardinality(positions)] = cardinality(positions) - 1 THEN figures
    ELSE ARRAY(
      SELECT f.figure
      FROM generate_series(0, positions[cardinality(positions)]) AS s(slot)
      LEFT JOIN unnest(positions, figures) AS f(slot, figure) ON f.slot = s.slot
      ORDER BY s.slot)
  END
$fn$;
--> statement-breakpoint
-- A task's accuracy as the comparison pairs it: pass@1, selected (a task with nothing
-- picked is unsolved) and oracle as bits 0, 1 and 2; null for a task a comparison does not
-- count (first candidate's, the pick's, where it picked one, or the oracle's correctness
-- unknown). The raw-row comparison (paired-difference-counts.ts) calls it too. A plain SQL
-- expression, so the planner inlines it.
CREATE FUNCTION assay_accuracy_bits(first_correct boolean, selected_index integer,
                                    selected_correct boolean, any_correct boolean)
RETURNS integer LANGUAGE sql IMMUTABLE AS $fn$
  SELECT CASE
    WHEN first_correct IS NULL OR any_correct IS NULL
         OR (selected_index IS NOT NULL AND selected_correct IS NULL) THEN NULL
    ELSE first_correct::int
         + 2 * (CASE WHEN selected_index IS NULL THEN false ELSE selected_correct END)::int
         + 4 * any_correct::int
  END
$fn$;
--> statement-breakpoint
-- Writes the run's chunks from its raw partitions (the caller has numbered its tasks), in
-- one statement: each task's mean scored value per scorer (as a raw comparison averages
-- it) and each counted task's accuracy bits. False when the run has no chunk partition
-- (pruned), so its comparisons read raw rows.
CREATE FUNCTION assay_write_task_rollup_chunks(run text) RETURNS boolean
LANGUAGE plpgsql AS $fn$
DECLARE
  chunks text := assay_run_partition('task_rollup_chunks', run);
BEGIN
  IF to_regclass(quote_ident(chunks)) IS NULL THEN RETURN false; END IF;
  EXECUTE format(
    'INSERT INTO %I (run_id, kind, figure, chunk, slots)
     SELECT %L, kind, figure, task_index / 1024,
            assay_chunk_slots(array_agg(task_index %% 1024 ORDER BY task_index),
                              array_agg(value ORDER BY task_index))
     FROM (SELECT ''scorer'' AS kind, s.scorer AS figure, k.task_index, avg(s.value) AS value
           FROM %I s
           JOIN %I sm ON sm.run_id = s.run_id AND sm.sample_id = s.sample_id
           JOIN task_keys k ON k.task_id = sm.task_id
           WHERE s.status = ''scored''
           GROUP BY s.scorer, k.task_index
           UNION ALL
           SELECT ''accuracy'', '''', k.task_index,
                  assay_accuracy_bits(s.first_correct, s.selected_index, s.selected_correct,
                                      s.any_correct)::float8
           FROM %I s
           JOIN task_keys k ON k.task_id = s.task_id
           WHERE assay_accuracy_bits(s.first_correct, s.selected_index, s.selected_correct,
                                     s.any_correct) IS NOT NULL) t
     GROUP BY kind, figure, task_index / 1024',
    chunks, run, assay_run_partition('scores', run), assay_run_partition('samples', run),
    assay_run_partition('selections', run));
  RETURN true;
END
$fn$;
--> statement-breakpoint
-- Every run not pruned gets its chunk partition; those rolled up with their tasks get their
-- chunks now, from their raw rows, so their comparisons keep reading rollups. (A pruned
-- run's task rollups went with its partitions; nothing pairs it any more.)
DO $do$
DECLARE
  run text;
BEGIN
  FOR run IN SELECT id FROM runs WHERE pruned_at IS NULL ORDER BY created_at, id LOOP
    PERFORM assay_create_run_partitions(run);
  END LOOP;
  FOR run IN
    SELECT r.id FROM runs r JOIN run_rollups rr ON rr.run_id = r.id
    WHERE r.pruned_at IS NULL AND rr.tasks_rolled_up ORDER BY r.created_at, r.id
  LOOP
    PERFORM assay_number_run_tasks(run);
    PERFORM assay_write_task_rollup_chunks(run);
  END LOOP;
END
$do$;
