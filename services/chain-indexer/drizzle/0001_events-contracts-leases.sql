CREATE TABLE "indexer"."contracts" (
	"network" text NOT NULL,
	"address" text NOT NULL,
	"deployment_block" bigint NOT NULL,
	"added_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "contracts_network_address_pk" PRIMARY KEY("network","address")
);
--> statement-breakpoint
CREATE TABLE "indexer"."events" (
	"event_id" text PRIMARY KEY NOT NULL,
	"network" text NOT NULL,
	"log_key" text NOT NULL,
	"occurrence" integer NOT NULL,
	"kind" text NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" text NOT NULL,
	"log_index" integer NOT NULL,
	"payload" jsonb NOT NULL,
	"published_at" timestamp with time zone DEFAULT now() NOT NULL,
	"removed_at" timestamp with time zone,
	"removed_reason" text
);
--> statement-breakpoint
CREATE TABLE "indexer"."leases" (
	"network" text PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "indexer"."cursors" ADD COLUMN "genesis_hash" text;--> statement-breakpoint
CREATE UNIQUE INDEX "events_log_key_occurrence_idx" ON "indexer"."events" USING btree ("log_key","occurrence");--> statement-breakpoint
CREATE INDEX "events_live_by_block_idx" ON "indexer"."events" USING btree ("network","block_number","log_index") WHERE "indexer"."events"."removed_at" is null;