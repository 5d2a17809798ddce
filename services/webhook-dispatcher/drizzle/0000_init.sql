CREATE SCHEMA "webhooks";
--> statement-breakpoint
CREATE TABLE "webhooks"."received_events" (
	"id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"platform_id" uuid,
	"payload" jsonb NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "received_events_platform_idx" ON "webhooks"."received_events" USING btree ("platform_id","occurred_at");