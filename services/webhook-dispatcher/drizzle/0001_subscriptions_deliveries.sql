CREATE TABLE "webhooks"."deliveries" (
	"id" uuid PRIMARY KEY NOT NULL,
	"subscription_id" uuid NOT NULL,
	"event_id" text NOT NULL,
	"event_type" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"retry_index" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_until" timestamp with time zone,
	"claim_token" uuid,
	"last_status_code" integer,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "deliveries_subscription_event_key" UNIQUE("subscription_id","event_id"),
	CONSTRAINT "deliveries_status" CHECK ("webhooks"."deliveries"."status" in ('pending', 'succeeded', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "webhooks"."delivery_attempts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"subscription_id" uuid NOT NULL,
	"delivery_id" uuid NOT NULL,
	"event_id" text NOT NULL,
	"event_type" text NOT NULL,
	"attempt" integer NOT NULL,
	"success" boolean NOT NULL,
	"status_code" integer,
	"response_time_ms" integer NOT NULL,
	"error_message" text,
	"request_headers" jsonb NOT NULL,
	"response_body" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhooks"."subscriptions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"platform_id" uuid,
	"workspace_id" uuid,
	"url" text NOT NULL,
	"event_types" text[] NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"ip_whitelist" text[] DEFAULT '{}'::text[] NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"secret_sealed" text NOT NULL,
	"previous_secret_sealed" text,
	"rotation_started_at" timestamp with time zone,
	"circuit_state" text DEFAULT 'CLOSED' NOT NULL,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"circuit_opened_at" timestamp with time zone,
	"circuit_half_open_at" timestamp with time zone,
	"probe_until" timestamp with time zone,
	"paused_until" timestamp with time zone,
	"disabled_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "subscriptions_one_owner" CHECK (num_nonnulls("webhooks"."subscriptions"."platform_id", "webhooks"."subscriptions"."workspace_id") = 1),
	CONSTRAINT "subscriptions_circuit_state" CHECK ("webhooks"."subscriptions"."circuit_state" in ('CLOSED', 'OPEN', 'HALF_OPEN'))
);
--> statement-breakpoint
ALTER TABLE "webhooks"."received_events" ADD COLUMN "workspace_id" uuid;--> statement-breakpoint
ALTER TABLE "webhooks"."deliveries" ADD CONSTRAINT "deliveries_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "webhooks"."subscriptions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhooks"."deliveries" ADD CONSTRAINT "deliveries_event_id_received_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "webhooks"."received_events"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhooks"."delivery_attempts" ADD CONSTRAINT "delivery_attempts_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "webhooks"."subscriptions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "deliveries_subscription_due_idx" ON "webhooks"."deliveries" USING btree ("subscription_id","next_attempt_at") WHERE "webhooks"."deliveries"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "deliveries_claimed_idx" ON "webhooks"."deliveries" USING btree ("subscription_id","claimed_until") WHERE "webhooks"."deliveries"."claimed_until" is not null;--> statement-breakpoint
CREATE INDEX "deliveries_event_idx" ON "webhooks"."deliveries" USING btree ("event_id");--> statement-breakpoint
CREATE INDEX "deliveries_finished_idx" ON "webhooks"."deliveries" USING btree ("updated_at") WHERE "webhooks"."deliveries"."status" <> 'pending';--> statement-breakpoint
CREATE INDEX "delivery_attempts_subscription_idx" ON "webhooks"."delivery_attempts" USING btree ("subscription_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "delivery_attempts_created_idx" ON "webhooks"."delivery_attempts" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "subscriptions_platform_idx" ON "webhooks"."subscriptions" USING btree ("platform_id");--> statement-breakpoint
CREATE INDEX "subscriptions_workspace_idx" ON "webhooks"."subscriptions" USING btree ("workspace_id");--> statement-breakpoint
CREATE INDEX "subscriptions_circuit_idx" ON "webhooks"."subscriptions" USING btree ("circuit_state") WHERE "webhooks"."subscriptions"."circuit_state" <> 'CLOSED';--> statement-breakpoint
CREATE INDEX "received_events_workspace_idx" ON "webhooks"."received_events" USING btree ("workspace_id","occurred_at");--> statement-breakpoint
CREATE INDEX "received_events_received_at_idx" ON "webhooks"."received_events" USING btree ("received_at");