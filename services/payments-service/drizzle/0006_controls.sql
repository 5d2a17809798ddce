CREATE TABLE "payments"."control_challenges" (
	"id" uuid PRIMARY KEY NOT NULL,
	"platform_id" uuid NOT NULL,
	"transaction_id" uuid NOT NULL,
	"control_id" text NOT NULL,
	"control_type" text NOT NULL,
	"is_required" boolean DEFAULT true NOT NULL,
	"recipient" text NOT NULL,
	"provider" text NOT NULL,
	"code_hash" text NOT NULL,
	"salt" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"verified_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments"."control_results" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"transaction_id" uuid NOT NULL,
	"control_id" text NOT NULL,
	"control_type" text NOT NULL,
	"execution_phase" text NOT NULL,
	"execution_order" integer NOT NULL,
	"is_required" boolean NOT NULL,
	"outcome" text NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments"."control_templates" (
	"id" uuid PRIMARY KEY NOT NULL,
	"platform_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"version" integer DEFAULT 1 NOT NULL,
	"controls" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payments"."control_challenges" ADD CONSTRAINT "control_challenges_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "payments"."transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments"."control_results" ADD CONSTRAINT "control_results_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "payments"."transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments"."control_templates" ADD CONSTRAINT "control_templates_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "payments"."platforms"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "control_challenges_one_open" ON "payments"."control_challenges" USING btree ("transaction_id") WHERE status = 'open';--> statement-breakpoint
CREATE INDEX "control_challenges_tx_idx" ON "payments"."control_challenges" USING btree ("transaction_id","created_at");--> statement-breakpoint
CREATE INDEX "control_results_tx_idx" ON "payments"."control_results" USING btree ("transaction_id","seq");--> statement-breakpoint
CREATE INDEX "control_templates_platform_created_idx" ON "payments"."control_templates" USING btree ("platform_id","created_at","id");