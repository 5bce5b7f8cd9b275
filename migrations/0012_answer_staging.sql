CREATE TABLE "answer_joins" (
	"run_id" text PRIMARY KEY NOT NULL,
	"joined" bigint NOT NULL,
	"missing_answers" bigint NOT NULL,
	"unmatched_answers" bigint NOT NULL,
	"failed_requests" bigint NOT NULL,
	"duplicate_answers" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "answer_staging" (
	"run_id" text NOT NULL,
	"custom_id" text NOT NULL,
	"file" text NOT NULL,
	"line" integer NOT NULL,
	"outcome" text NOT NULL,
	"reason" text NOT NULL,
	"model" text,
	"choices" jsonb NOT NULL,
	"input_tokens" integer,
	"cached_input_tokens" integer,
	"output_tokens" integer,
	"matched" boolean DEFAULT false NOT NULL,
	CONSTRAINT "answer_staging_run_id_custom_id_pk" PRIMARY KEY("run_id","custom_id")
);
