CREATE TABLE "run_producers" (
	"run_id" text PRIMARY KEY NOT NULL,
	"producer" text NOT NULL,
	"queue_prefix" text NOT NULL,
	"resume_command" text NOT NULL,
	"model_queues" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"state" text NOT NULL,
	"reason" text,
	"started_at" timestamp with time zone NOT NULL,
	"heartbeat_at" timestamp with time zone NOT NULL,
	"bytes_read" bigint NOT NULL,
	"read_seconds" double precision NOT NULL,
	"bytes_total" bigint NOT NULL,
	"jobs_enqueued" bigint NOT NULL,
	"input_errors" bigint NOT NULL
);
