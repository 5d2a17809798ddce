CREATE TABLE "payments"."code_deliveries" (
	"challenge_id" uuid PRIMARY KEY NOT NULL,
	"transaction_id" uuid NOT NULL,
	"purpose" text NOT NULL,
	"sealed" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp with time zone,
	"last_error" text,
	"message_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "payments"."code_deliveries" ADD CONSTRAINT "code_deliveries_challenge_id_control_challenges_id_fk" FOREIGN KEY ("challenge_id") REFERENCES "payments"."control_challenges"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "code_deliveries_due_idx" ON "payments"."code_deliveries" USING btree ("next_attempt_at") WHERE status in ('pending', 'sending');