CREATE TABLE "payments"."remote_tasks" (
	"id" uuid PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"payload" jsonb NOT NULL,
	"platform_id" uuid NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "remote_tasks_kind_check" CHECK ("payments"."remote_tasks"."kind" in ('webhooks.deactivate-owner')),
	CONSTRAINT "remote_tasks_status_check" CHECK ("payments"."remote_tasks"."status" in ('pending', 'done', 'dead'))
);
--> statement-breakpoint
CREATE INDEX "remote_tasks_due_idx" ON "payments"."remote_tasks" USING btree ("next_attempt_at") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "remote_tasks_platform_idx" ON "payments"."remote_tasks" USING btree ("platform_id","created_at");