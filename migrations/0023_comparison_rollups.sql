-- `report <run> --compare <its predecessor>` counted when the run completes: the few rows per
-- figure the comparison's interval is computed from, instead of two runs' tasks joined at
-- report time. run_rollups.compared_with names the predecessor (null: none was complete).
CREATE TABLE "comparison_rollups" (
	"run_id" text NOT NULL,
	"baseline_run_id" text NOT NULL,
	"position" integer NOT NULL,
	"kind" text NOT NULL,
	"metric" text NOT NULL,
	"difference" double precision,
	"tasks" bigint NOT NULL,
	"current_sum" double precision,
	"baseline_sum" double precision,
	"square_sum" double precision,
	CONSTRAINT "comparison_rollups_run_id_position_pk" PRIMARY KEY("run_id","position")
);
--> statement-breakpoint
ALTER TABLE "run_rollups" ADD COLUMN "compared_with" text;--> statement-breakpoint
CREATE INDEX "comparison_rollups_baseline_idx" ON "comparison_rollups" USING btree ("baseline_run_id");