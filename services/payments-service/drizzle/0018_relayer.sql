CREATE TABLE "payments"."relayed_locks" (
	"id" uuid PRIMARY KEY NOT NULL,
	"platform_id" uuid NOT NULL,
	"transaction_id" uuid NOT NULL,
	"network" text NOT NULL,
	"kind" text NOT NULL,
	"request" jsonb NOT NULL,
	"derived_nonce" text NOT NULL,
	"relayer" text NOT NULL,
	"account_nonce" bigint NOT NULL,
	"gas_limit" numeric NOT NULL,
	"raw_tx" text NOT NULL,
	"tx_hash" text NOT NULL,
	"max_fee_per_gas" numeric NOT NULL,
	"max_priority_fee_per_gas" numeric NOT NULL,
	"earlier_hashes" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"status" text DEFAULT 'submitted' NOT NULL,
	"mined_hash" text,
	"gas_used" numeric,
	"fee_paid_wei" numeric,
	"error" text,
	"attempts" integer DEFAULT 1 NOT NULL,
	"sent_at" timestamp with time zone DEFAULT now() NOT NULL,
	"applied_at" timestamp with time zone,
	"next_check_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments"."relayer_accounts" (
	"network" text NOT NULL,
	"address" text NOT NULL,
	"next_nonce" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "relayer_accounts_network_address_pk" PRIMARY KEY("network","address")
);
--> statement-breakpoint
ALTER TABLE "payments"."relayed_locks" ADD CONSTRAINT "relayed_locks_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "payments"."platforms"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments"."relayed_locks" ADD CONSTRAINT "relayed_locks_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "payments"."transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "relayed_locks_live_transaction_unique" ON "payments"."relayed_locks" USING btree ("transaction_id") WHERE status in ('submitted', 'mined');--> statement-breakpoint
CREATE UNIQUE INDEX "relayed_locks_live_account_nonce_unique" ON "payments"."relayed_locks" USING btree ("network","relayer","account_nonce") WHERE status in ('submitted', 'mined');--> statement-breakpoint
CREATE INDEX "relayed_locks_due_idx" ON "payments"."relayed_locks" USING btree ("next_check_at") WHERE status = 'submitted' or (status = 'mined' and applied_at is null);--> statement-breakpoint
CREATE INDEX "relayed_locks_platform_day_idx" ON "payments"."relayed_locks" USING btree ("platform_id","created_at");--> statement-breakpoint
CREATE INDEX "relayed_locks_derived_nonce_idx" ON "payments"."relayed_locks" USING btree ("network","derived_nonce");