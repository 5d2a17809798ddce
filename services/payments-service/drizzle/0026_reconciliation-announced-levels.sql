ALTER TABLE "payments"."reconciliation_mismatches" ADD COLUMN "announced_finality" text;--> statement-breakpoint
ALTER TABLE "payments"."reconciliation_mismatches" ADD COLUMN "announced_block_number" bigint;--> statement-breakpoint
ALTER TABLE "payments"."reconciliation_mismatches" ADD COLUMN "announced_block_hash" text;