CREATE TABLE "payments"."checkout_sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"platform_id" uuid NOT NULL,
	"workspace_id" uuid,
	"status" text NOT NULL,
	"amount" numeric NOT NULL,
	"currency" text NOT NULL,
	"blockchain_network" text NOT NULL,
	"to_address" text NOT NULL,
	"from_address" text,
	"template_id" uuid,
	"template" jsonb,
	"customer_id" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"success_url" text NOT NULL,
	"cancel_url" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"transaction_id" uuid,
	"idempotency_key" text,
	"request_fingerprint" text NOT NULL,
	"completed_at" timestamp with time zone,
	"expired_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payments"."checkout_sessions" ADD CONSTRAINT "checkout_sessions_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "payments"."platforms"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments"."checkout_sessions" ADD CONSTRAINT "checkout_sessions_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "payments"."transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "checkout_sessions_platform_created_idx" ON "payments"."checkout_sessions" USING btree ("platform_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "checkout_sessions_platform_key_idx" ON "payments"."checkout_sessions" USING btree ("platform_id","idempotency_key") WHERE idempotency_key is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "checkout_sessions_transaction_idx" ON "payments"."checkout_sessions" USING btree ("transaction_id") WHERE transaction_id is not null;--> statement-breakpoint
CREATE INDEX "checkout_sessions_open_expires_idx" ON "payments"."checkout_sessions" USING btree ("expires_at") WHERE status = 'open';