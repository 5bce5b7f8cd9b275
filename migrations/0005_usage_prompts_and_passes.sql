ALTER TABLE "usage" ADD COLUMN "prompts" integer;--> statement-breakpoint
ALTER TABLE "usage" ADD COLUMN "forward_passes" double precision;