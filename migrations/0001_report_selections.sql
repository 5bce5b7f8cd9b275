CREATE TABLE "selections" (
	"run_id" text NOT NULL,
	"task_id" text NOT NULL,
	"method" text NOT NULL,
	"candidates" integer NOT NULL,
	"selected_index" integer,
	"selected_sample_id" text,
	"tie" boolean NOT NULL,
	"discrete_tie" boolean,
	"tie_break" text,
	"selected_correct" boolean,
	"first_correct" boolean,
	"any_correct" boolean,
	"detail" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "selections_run_id_task_id_pk" PRIMARY KEY("run_id","task_id")
);
--> statement-breakpoint
CREATE INDEX "runs_created_idx" ON "runs" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "runs_name_created_idx" ON "runs" USING btree ("name","created_at");