-- Rollups for `report --by` and `report --compare`: a report of a finished run reads a few
-- rows per slice, and a comparison a row per task and scorer instead of every score joined to
-- its sample. Both are written with run_rollups; tasks_rolled_up says they were.
CREATE TABLE "slice_rollups" (
	"run_id" text NOT NULL,
	"field" text NOT NULL,
	"position" integer NOT NULL,
	"value" text,
	"figures" jsonb NOT NULL,
	CONSTRAINT "slice_rollups_run_id_field_position_pk" PRIMARY KEY("run_id","field","position")
);
--> statement-breakpoint
-- A row per task and scorer grows with the run, so it is partitioned by run like the raw
-- tables (0015): runs make its partition when they start, and `assay prune` drops it.
CREATE TABLE "task_score_rollups" (
	"run_id" text NOT NULL,
	"task_id" text NOT NULL,
	"scorer" text NOT NULL,
	"value" double precision,
	CONSTRAINT "task_score_rollups_run_id_task_id_scorer_pk" PRIMARY KEY("run_id","task_id","scorer")
) PARTITION BY LIST ("run_id");
--> statement-breakpoint
ALTER TABLE "run_rollups" ADD COLUMN "tasks_rolled_up" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE OR REPLACE FUNCTION assay_run_partitioned_tables() RETURNS text[] LANGUAGE sql IMMUTABLE AS $fn$
  SELECT ARRAY['samples', 'scores', 'truncations', 'usage', 'selections', 'task_score_rollups']
$fn$;
--> statement-breakpoint
-- Runs started before this have every other partition: make theirs too (not a pruned run's,
-- whose partitions are gone for good).
DO $do$
DECLARE
  run text;
  part text;
BEGIN
  FOR run IN SELECT id FROM runs WHERE pruned_at IS NULL LOOP
    part := assay_run_partition('task_score_rollups', run);
    IF to_regclass(quote_ident(part)) IS NULL THEN
      EXECUTE format('CREATE TABLE %I (LIKE task_score_rollups INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part);
      EXECUTE format('ALTER TABLE task_score_rollups ATTACH PARTITION %I FOR VALUES IN (%L)', part, run);
    END IF;
  END LOOP;
END
$do$;
