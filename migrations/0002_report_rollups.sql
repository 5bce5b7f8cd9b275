CREATE TABLE "histogram_rollups" (
	"run_id" text NOT NULL,
	"scorer" text NOT NULL,
	"scored" bigint NOT NULL,
	"counts" bigint[] NOT NULL,
	CONSTRAINT "histogram_rollups_run_id_scorer_pk" PRIMARY KEY("run_id","scorer")
);
--> statement-breakpoint
CREATE TABLE "run_rollups" (
	"run_id" text PRIMARY KEY NOT NULL,
	"samples" bigint NOT NULL,
	"tasks" bigint NOT NULL,
	"results" bigint NOT NULL,
	"selected_tasks" bigint NOT NULL,
	"unselected" bigint NOT NULL,
	"methods" text[] NOT NULL,
	"counted" bigint NOT NULL,
	"pass1" bigint NOT NULL,
	"selected" bigint NOT NULL,
	"oracle" bigint NOT NULL,
	"ties" bigint NOT NULL,
	"discrete_ties" bigint NOT NULL,
	"discrete_of" bigint NOT NULL,
	"truncation_calls" bigint[] NOT NULL,
	"truncation_cut" bigint[] NOT NULL,
	"rolled_up_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "summary_rollups" (
	"run_id" text NOT NULL,
	"kind" text NOT NULL,
	"position" integer NOT NULL,
	"summary" jsonb NOT NULL,
	CONSTRAINT "summary_rollups_run_id_kind_position_pk" PRIMARY KEY("run_id","kind","position")
);
--> statement-breakpoint
CREATE TABLE "unscored_rollups" (
	"run_id" text NOT NULL,
	"reason" text NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "unscored_rollups_run_id_reason_pk" PRIMARY KEY("run_id","reason")
);
--> statement-breakpoint
CREATE TABLE "usage_rollups" (
	"run_id" text NOT NULL,
	"role" text NOT NULL,
	"model" text NOT NULL,
	"input_tokens" bigint NOT NULL,
	"cached_input_tokens" bigint NOT NULL,
	"output_tokens" bigint NOT NULL,
	"compute_ms" double precision,
	"rows" bigint NOT NULL,
	CONSTRAINT "usage_rollups_run_id_role_model_pk" PRIMARY KEY("run_id","role","model")
);
--> statement-breakpoint
CREATE INDEX "scores_progress_idx" ON "scores" USING btree ("run_id") WHERE jsonb_typeof(detail -> 'progress') = 'array';