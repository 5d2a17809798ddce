CREATE TABLE "payments"."reconciliation_mismatches" (
	"id" uuid PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"transaction_id" uuid NOT NULL,
	"batch_id" uuid,
	"network" text NOT NULL,
	"escrow_address" text NOT NULL,
	"database_status" text NOT NULL,
	"chain_status" text NOT NULL,
	"first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	"resolution" text,
	"repaired_by" text
);
--> statement-breakpoint
CREATE TABLE "payments"."settlement_operator_actions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"item_kind" text NOT NULL,
	"item_id" text NOT NULL,
	"action" text NOT NULL,
	"actor" text NOT NULL,
	"actor_platform_id" uuid NOT NULL,
	"reason" text NOT NULL,
	"from_status" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payments"."applied_chain_messages" ADD COLUMN "resolved_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payments"."settlements" ADD COLUMN "resolved_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payments"."reconciliation_mismatches" ADD CONSTRAINT "reconciliation_mismatches_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "payments"."transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "reconciliation_mismatches_open_unique" ON "payments"."reconciliation_mismatches" USING btree ("transaction_id","kind") WHERE resolved_at is null;--> statement-breakpoint
CREATE INDEX "reconciliation_mismatches_seen_idx" ON "payments"."reconciliation_mismatches" USING btree ("first_seen_at");--> statement-breakpoint
CREATE INDEX "settlement_operator_actions_item_idx" ON "payments"."settlement_operator_actions" USING btree ("item_kind","item_id","created_at");