ALTER TABLE "payments"."reconciliation_mismatches" ADD COLUMN "announced_finality" text;--> statement-breakpoint
ALTER TABLE "payments"."reconciliation_mismatches" ADD COLUMN "announced_block_number" bigint;--> statement-breakpoint
ALTER TABLE "payments"."reconciliation_mismatches" ADD COLUMN "announced_block_hash" text;--> statement-breakpoint
ALTER TABLE "payments"."transactions" ADD COLUMN "required_finality" text;--> statement-breakpoint
ALTER TABLE "payments"."transactions" ADD COLUMN "finality" text;--> statement-breakpoint
ALTER TABLE "payments"."transactions" ADD COLUMN "confirmations" integer;--> statement-breakpoint
ALTER TABLE "payments"."transactions" ADD COLUMN "block_number" bigint;--> statement-breakpoint
ALTER TABLE "payments"."transactions" ADD COLUMN "block_hash" text;