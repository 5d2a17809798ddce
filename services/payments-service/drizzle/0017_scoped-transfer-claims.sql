CREATE TABLE "payments"."settlement_disputed_claims" (
	"id" uuid PRIMARY KEY NOT NULL,
	"chain_id" integer NOT NULL,
	"network" text NOT NULL,
	"tx_hash" text NOT NULL,
	"log_index" integer NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"rightful_transaction_id" uuid,
	"resolution" text,
	"resolved_by" text,
	"resolved_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payments"."claimed_transfers" ADD COLUMN "platform_id" uuid;--> statement-breakpoint
UPDATE "payments"."claimed_transfers" AS c SET "platform_id" = t."platform_id" FROM "payments"."transactions" AS t WHERE t."id" = c."transaction_id";--> statement-breakpoint
ALTER TABLE "payments"."claimed_transfers" ALTER COLUMN "platform_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "payments"."claimed_transfers" DROP CONSTRAINT "claimed_transfers_chain_id_tx_hash_log_index_pk";--> statement-breakpoint
ALTER TABLE "payments"."claimed_transfers" ADD CONSTRAINT "claimed_transfers_chain_id_tx_hash_log_index_platform_id_pk" PRIMARY KEY("chain_id","tx_hash","log_index","platform_id");--> statement-breakpoint
ALTER TABLE "payments"."claimed_transfers" ADD COLUMN "tagged" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "payments"."settlement_disputed_claims" ADD CONSTRAINT "settlement_disputed_claims_rightful_transaction_id_transactions_id_fk" FOREIGN KEY ("rightful_transaction_id") REFERENCES "payments"."transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "settlement_disputed_claims_log_unique" ON "payments"."settlement_disputed_claims" USING btree ("chain_id","tx_hash","log_index");--> statement-breakpoint
CREATE INDEX "settlement_disputed_claims_status_idx" ON "payments"."settlement_disputed_claims" USING btree ("status","created_at");--> statement-breakpoint
ALTER TABLE "payments"."claimed_transfers" ADD CONSTRAINT "claimed_transfers_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "payments"."platforms"("id") ON DELETE no action ON UPDATE no action;