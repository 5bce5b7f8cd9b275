-- `assay abandon`: when the run was given up. It never finishes: completion refuses it, and
-- reports, trends and `assay prune` treat it as abandoned.
ALTER TABLE "runs" ADD COLUMN "abandoned_at" timestamp with time zone;