CREATE TABLE "early_stop_candidate_rollups" (
	"run_id" text NOT NULL,
	"position" integer NOT NULL,
	"sample_id" text NOT NULL,
	"task_id" text NOT NULL,
	"scorer" text NOT NULL,
	"from_step" integer NOT NULL,
	"falls" integer NOT NULL,
	"progress" jsonb NOT NULL,
	CONSTRAINT "early_stop_candidate_rollups_run_id_position_pk" PRIMARY KEY("run_id","position")
);
--> statement-breakpoint
CREATE TABLE "early_stop_rollups" (
	"run_id" text PRIMARY KEY NOT NULL,
	"fall_steps" integer NOT NULL,
	"min_fall" double precision NOT NULL,
	"total" bigint NOT NULL
);
