CREATE TABLE "payments"."batches" (
	"id" uuid PRIMARY KEY NOT NULL,
	"platform_id" uuid NOT NULL,
	"workspace_id" uuid,
	"status" text NOT NULL,
	"from_address" text NOT NULL,
	"currency" text NOT NULL,
	"blockchain_network" text NOT NULL,
	"chain_id" integer,
	"orchestration_type" text NOT NULL,
	"signer_type" text NOT NULL,
	"template_id" uuid,
	"template" jsonb,
	"customer_id" text,
	"idempotency_key" text,
	"request_fingerprint" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"leg_count" integer NOT NULL,
	"total_amount" numeric NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments"."transaction_transitions" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"transaction_id" uuid NOT NULL,
	"from_status" text,
	"to_status" text NOT NULL,
	"action" text NOT NULL,
	"actor" text NOT NULL,
	"reason" text,
	"event_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments"."transactions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"platform_id" uuid NOT NULL,
	"workspace_id" uuid,
	"status" text NOT NULL,
	"amount" numeric NOT NULL,
	"currency" text NOT NULL,
	"from_address" text NOT NULL,
	"to_address" text NOT NULL,
	"blockchain_network" text NOT NULL,
	"chain_id" integer,
	"orchestration_type" text NOT NULL,
	"signer_type" text,
	"customer_id" text,
	"template_id" uuid,
	"template" jsonb,
	"billing_config" jsonb,
	"quote_id" uuid,
	"fee_amount" numeric,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"idempotency_key" text,
	"request_fingerprint" text,
	"batch_id" uuid,
	"leg_index" integer,
	"tx_hash" text,
	"escrow_address" text,
	"hold_deadline" timestamp with time zone,
	"rescind_policy" jsonb,
	"failure_reason" text,
	"version" integer DEFAULT 1 NOT NULL,
	"status_changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payments"."batches" ADD CONSTRAINT "batches_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "payments"."platforms"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments"."transaction_transitions" ADD CONSTRAINT "transaction_transitions_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "payments"."transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments"."transactions" ADD CONSTRAINT "transactions_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "payments"."platforms"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments"."transactions" ADD CONSTRAINT "transactions_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "payments"."batches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "batches_platform_created_idx" ON "payments"."batches" USING btree ("platform_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "batches_idempotency_unique" ON "payments"."batches" USING btree ("platform_id","idempotency_key") WHERE idempotency_key is not null;--> statement-breakpoint
CREATE INDEX "transaction_transitions_tx_idx" ON "payments"."transaction_transitions" USING btree ("transaction_id","seq");--> statement-breakpoint
CREATE INDEX "transactions_platform_created_idx" ON "payments"."transactions" USING btree ("platform_id","created_at","id");--> statement-breakpoint
CREATE INDEX "transactions_platform_status_idx" ON "payments"."transactions" USING btree ("platform_id","status","status_changed_at");--> statement-breakpoint
CREATE INDEX "transactions_platform_from_idx" ON "payments"."transactions" USING btree ("platform_id",lower("from_address"),"created_at");--> statement-breakpoint
CREATE INDEX "transactions_platform_to_idx" ON "payments"."transactions" USING btree ("platform_id",lower("to_address"));--> statement-breakpoint
CREATE INDEX "transactions_platform_customer_idx" ON "payments"."transactions" USING btree ("platform_id","customer_id");--> statement-breakpoint
CREATE INDEX "transactions_workspace_created_idx" ON "payments"."transactions" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "transactions_batch_idx" ON "payments"."transactions" USING btree ("batch_id","leg_index");--> statement-breakpoint
CREATE UNIQUE INDEX "transactions_idempotency_unique" ON "payments"."transactions" USING btree ("platform_id","idempotency_key") WHERE idempotency_key is not null and batch_id is null;