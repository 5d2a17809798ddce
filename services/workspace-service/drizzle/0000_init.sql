CREATE SCHEMA "workspace";
--> statement-breakpoint
CREATE TABLE "workspace"."outbox" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"id" text NOT NULL,
	"type" text NOT NULL,
	"platform_id" uuid,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"published_at" timestamp with time zone,
	CONSTRAINT "outbox_id_unique" UNIQUE("id")
);
--> statement-breakpoint
CREATE INDEX "outbox_unpublished_idx" ON "workspace"."outbox" USING btree ("seq") WHERE published_at is null;