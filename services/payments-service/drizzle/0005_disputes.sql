CREATE TABLE "payments"."dispute_evidence" (
	"id" uuid PRIMARY KEY NOT NULL,
	"dispute_id" uuid NOT NULL,
	"submitted_by" text NOT NULL,
	"type" text NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"content" text,
	"file_url" text,
	"file_hash" text,
	"is_encrypted" boolean DEFAULT false NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments"."disputes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"platform_id" uuid NOT NULL,
	"workspace_id" uuid,
	"transaction_id" uuid NOT NULL,
	"initiated_by" text NOT NULL,
	"current_tier" text NOT NULL,
	"status" text NOT NULL,
	"reason" text NOT NULL,
	"tier1_completed_at" timestamp with time zone,
	"tier2_completed_at" timestamp with time zone,
	"resolved_at" timestamp with time zone,
	"outcome" text,
	"resolution_reason" text,
	"refund_percentage" numeric(5, 2),
	"resolved_by" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payments"."dispute_evidence" ADD CONSTRAINT "dispute_evidence_dispute_id_disputes_id_fk" FOREIGN KEY ("dispute_id") REFERENCES "payments"."disputes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments"."disputes" ADD CONSTRAINT "disputes_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "payments"."platforms"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments"."disputes" ADD CONSTRAINT "disputes_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "payments"."transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dispute_evidence_dispute_idx" ON "payments"."dispute_evidence" USING btree ("dispute_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "disputes_transaction_unique" ON "payments"."disputes" USING btree ("transaction_id");--> statement-breakpoint
CREATE INDEX "disputes_platform_created_idx" ON "payments"."disputes" USING btree ("platform_id","created_at","id");--> statement-breakpoint
CREATE INDEX "disputes_platform_status_idx" ON "payments"."disputes" USING btree ("platform_id","status","created_at");