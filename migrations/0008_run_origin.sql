ALTER TABLE "runs" ADD COLUMN "dataset_path" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "dataset_bytes" bigint;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "dataset_sha256" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "dataset_hashed_bytes" bigint;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "spec_sha256" text;