-- `assay baseline <run-id>` pins a run that later runs of its name are compared with at
-- completion, besides the run before them: a report of a run against its pinned baseline
-- reads counted rows too. A run may now have two stored comparisons, so the baseline is
-- part of comparison_rollups' key, and run_rollups names the pinned one it was counted with.
CREATE TABLE "run_baselines" (
	"name" text PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"pinned_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "comparison_rollups" DROP CONSTRAINT "comparison_rollups_run_id_position_pk";--> statement-breakpoint
ALTER TABLE "comparison_rollups" ADD CONSTRAINT "comparison_rollups_run_id_baseline_run_id_position_pk" PRIMARY KEY("run_id","baseline_run_id","position");--> statement-breakpoint
ALTER TABLE "run_rollups" ADD COLUMN "compared_with_pinned" text;