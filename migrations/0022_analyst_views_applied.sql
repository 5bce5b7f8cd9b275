CREATE TABLE "analyst_views_applied" (
	"sha256" text PRIMARY KEY NOT NULL,
	"applied_at" timestamp with time zone DEFAULT now() NOT NULL
);
