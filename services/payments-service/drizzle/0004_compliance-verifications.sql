CREATE TABLE "payments"."identity_provider_events" (
	"provider" text NOT NULL,
	"event_id" text NOT NULL,
	"verification_id" uuid NOT NULL,
	"outcome" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "identity_provider_events_provider_event_id_pk" PRIMARY KEY("provider","event_id")
);
--> statement-breakpoint
CREATE TABLE "payments"."verifications" (
	"id" uuid PRIMARY KEY NOT NULL,
	"platform_id" uuid NOT NULL,
	"user_id" text NOT NULL,
	"type" text NOT NULL,
	"status" text NOT NULL,
	"level" text,
	"risk_rating" text,
	"provider" text NOT NULL,
	"external_inquiry_id" text,
	"external_session_token" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"rejection_reason" text,
	"verified_at" timestamp with time zone,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payments"."identity_provider_events" ADD CONSTRAINT "identity_provider_events_verification_id_verifications_id_fk" FOREIGN KEY ("verification_id") REFERENCES "payments"."verifications"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments"."verifications" ADD CONSTRAINT "verifications_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "payments"."platforms"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "verifications_check_idx" ON "payments"."verifications" USING btree ("platform_id","user_id","type","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "verifications_inquiry_unique" ON "payments"."verifications" USING btree ("provider","external_inquiry_id");