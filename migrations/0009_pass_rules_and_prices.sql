CREATE TABLE "pass_rollups" (
	"run_id" text NOT NULL,
	"scorer" text NOT NULL,
	"scored" bigint NOT NULL,
	"unscored" bigint NOT NULL,
	"passed" bigint NOT NULL,
	"threshold" double precision NOT NULL,
	CONSTRAINT "pass_rollups_run_id_scorer_pk" PRIMARY KEY("run_id","scorer")
);
--> statement-breakpoint
CREATE TABLE "price_versions" (
	"version" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "price_versions_version_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"effective_from" timestamp with time zone NOT NULL,
	"currency" text NOT NULL,
	"source" text NOT NULL,
	"imported_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "prices" (
	"version" integer NOT NULL,
	"model" text NOT NULL,
	"input_per_million" double precision,
	"cached_input_per_million" double precision,
	"cache_write_per_million" double precision,
	"output_per_million" double precision,
	"gpu_hour" double precision,
	CONSTRAINT "prices_version_model_pk" PRIMARY KEY("version","model")
);
--> statement-breakpoint
ALTER TABLE "run_rollups" ADD COLUMN "solved" bigint;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "pass_threshold" double precision GENERATED ALWAYS AS (coalesce((spec #>> '{pass,threshold}')::float8, 0.5)) STORED NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "pass_thresholds" jsonb GENERATED ALWAYS AS (CASE WHEN spec #>> '{selection,check}' IS NULL THEN coalesce(spec #> '{pass,scorers}', '{}'::jsonb) ELSE jsonb_set(coalesce(spec #> '{pass,scorers}', '{}'::jsonb), ARRAY[spec #>> '{selection,check}'], spec #> '{selection,threshold}') END) STORED NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "has_selection" boolean GENERATED ALWAYS AS (spec ? 'selection') STORED NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "solved_by" text GENERATED ALWAYS AS (spec #>> '{pass,solved_by}') STORED;--> statement-breakpoint
CREATE INDEX "price_versions_effective_idx" ON "price_versions" USING btree ("effective_from");