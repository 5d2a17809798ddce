CREATE TABLE "payments"."applied_chain_messages" (
	"message_id" text PRIMARY KEY NOT NULL,
	"event_id" text NOT NULL,
	"kind" text NOT NULL,
	"removed" boolean NOT NULL,
	"network" text NOT NULL,
	"transaction_id" uuid,
	"outcome" text NOT NULL,
	"action" text,
	"source" text NOT NULL,
	"detail" text,
	"applied_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments"."claimed_transfers" (
	"chain_id" integer NOT NULL,
	"tx_hash" text NOT NULL,
	"log_index" integer NOT NULL,
	"transaction_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "claimed_transfers_chain_id_tx_hash_log_index_pk" PRIMARY KEY("chain_id","tx_hash","log_index")
);
--> statement-breakpoint
CREATE TABLE "payments"."early_release_attestations" (
	"transaction_id" uuid NOT NULL,
	"party" text NOT NULL,
	"tx_hash" text,
	"verified" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "early_release_attestations_transaction_id_party_pk" PRIMARY KEY("transaction_id","party")
);
--> statement-breakpoint
CREATE TABLE "payments"."rescind_requests" (
	"transaction_id" uuid PRIMARY KEY NOT NULL,
	"reason" text,
	"actor" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments"."settlements" (
	"id" uuid PRIMARY KEY NOT NULL,
	"transaction_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"refund_bps" integer,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp with time zone,
	"tx_hash" text,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payments"."claimed_transfers" ADD CONSTRAINT "claimed_transfers_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "payments"."transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments"."early_release_attestations" ADD CONSTRAINT "early_release_attestations_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "payments"."transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments"."rescind_requests" ADD CONSTRAINT "rescind_requests_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "payments"."transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments"."settlements" ADD CONSTRAINT "settlements_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "payments"."transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "applied_chain_messages_tx_idx" ON "payments"."applied_chain_messages" USING btree ("transaction_id");--> statement-breakpoint
CREATE UNIQUE INDEX "settlements_transaction_kind_unique" ON "payments"."settlements" USING btree ("transaction_id","kind");--> statement-breakpoint
CREATE INDEX "settlements_due_idx" ON "payments"."settlements" USING btree ("next_attempt_at") WHERE status in ('pending', 'sending');