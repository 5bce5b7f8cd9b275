CREATE TABLE "input_errors" (
	"run_id" text NOT NULL,
	"file" text NOT NULL,
	"line" integer NOT NULL,
	"field" text NOT NULL,
	"message" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "input_errors_run_file_line_key" UNIQUE("run_id","file","line")
);
--> statement-breakpoint
CREATE TABLE "runs" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text,
	"dataset" text,
	"spec" jsonb NOT NULL,
	"transport" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"planned_results" bigint
);
--> statement-breakpoint
CREATE TABLE "samples" (
	"run_id" text NOT NULL,
	"sample_id" text NOT NULL,
	"task_id" text NOT NULL,
	"candidate_index" integer NOT NULL,
	"label" boolean,
	"line" integer NOT NULL,
	"metadata" jsonb NOT NULL,
	CONSTRAINT "samples_run_id_sample_id_pk" PRIMARY KEY("run_id","sample_id")
);
--> statement-breakpoint
CREATE TABLE "scores" (
	"run_id" text NOT NULL,
	"sample_id" text NOT NULL,
	"scorer" text NOT NULL,
	"criterion" text DEFAULT '' NOT NULL,
	"repetition" integer DEFAULT 0 NOT NULL,
	"rule" text NOT NULL,
	"status" text NOT NULL,
	"value" double precision,
	"reason" text,
	"detail" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "scores_run_id_sample_id_scorer_criterion_repetition_pk" PRIMARY KEY("run_id","sample_id","scorer","criterion","repetition"),
	CONSTRAINT "scores_status_check" CHECK ("scores"."status" in ('scored', 'unscored'))
);
--> statement-breakpoint
CREATE TABLE "truncations" (
	"run_id" text NOT NULL,
	"sample_id" text NOT NULL,
	"scorer" text NOT NULL,
	"criterion" text DEFAULT '' NOT NULL,
	"repetition" integer DEFAULT 0 NOT NULL,
	"original_tokens" integer NOT NULL,
	"kept_tokens" integer NOT NULL,
	"dropped_tokens" integer NOT NULL,
	"slot" text NOT NULL,
	"policy" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "truncations_run_id_sample_id_scorer_criterion_repetition_pk" PRIMARY KEY("run_id","sample_id","scorer","criterion","repetition")
);
--> statement-breakpoint
CREATE TABLE "usage" (
	"run_id" text NOT NULL,
	"sample_id" text NOT NULL,
	"role" text NOT NULL,
	"model" text NOT NULL,
	"input_tokens" integer NOT NULL,
	"cached_input_tokens" integer NOT NULL,
	"output_tokens" integer NOT NULL,
	"compute_ms" double precision,
	"device" text,
	"scorer" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "usage_run_id_sample_id_role_scorer_pk" PRIMARY KEY("run_id","sample_id","role","scorer"),
	CONSTRAINT "usage_role_check" CHECK ("usage"."role" in ('generator', 'verifier'))
);
--> statement-breakpoint
CREATE INDEX "samples_run_task_idx" ON "samples" USING btree ("run_id","task_id");