CREATE SCHEMA "indexer";
--> statement-breakpoint
CREATE TABLE "indexer"."cursors" (
	"network" text PRIMARY KEY NOT NULL,
	"chain_id" integer NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "indexer"."recent_blocks" (
	"network" text NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" text NOT NULL,
	"parent_hash" text NOT NULL,
	"seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "recent_blocks_network_block_number_pk" PRIMARY KEY("network","block_number")
);
