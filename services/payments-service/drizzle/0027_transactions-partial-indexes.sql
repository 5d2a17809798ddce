DROP INDEX "payments"."transactions_workspace_created_idx";--> statement-breakpoint
DROP INDEX "payments"."transactions_platform_customer_idx";--> statement-breakpoint
DROP INDEX "payments"."transactions_batch_idx";--> statement-breakpoint
CREATE INDEX "transactions_platform_customer_idx" ON "payments"."transactions" USING btree ("platform_id","customer_id") WHERE customer_id is not null;--> statement-breakpoint
CREATE INDEX "transactions_batch_idx" ON "payments"."transactions" USING btree ("batch_id","leg_index") WHERE batch_id is not null;