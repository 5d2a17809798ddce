CREATE TABLE "payments"."quotes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"platform_id" uuid NOT NULL,
	"amount" numeric NOT NULL,
	"currency" text NOT NULL,
	"blockchain_network" text NOT NULL,
	"fee_type" text NOT NULL,
	"fee_percentage" numeric NOT NULL,
	"fee" numeric NOT NULL,
	"total" numeric NOT NULL,
	"billing_config" jsonb,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"transaction_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payments"."quotes" ADD CONSTRAINT "quotes_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "payments"."platforms"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "quotes_platform_created_idx" ON "payments"."quotes" USING btree ("platform_id","created_at");