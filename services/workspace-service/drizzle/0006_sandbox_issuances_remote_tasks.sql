CREATE TABLE "workspace"."remote_tasks" (
	"id" uuid PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"payload" jsonb NOT NULL,
	"workspace_id" uuid NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "remote_tasks_kind_check" CHECK ("workspace"."remote_tasks"."kind" in ('payments.deactivate-workspace-platforms', 'payments.deactivate-platform', 'webhooks.deactivate-owner', 'sandbox.reconcile-issuance')),
	CONSTRAINT "remote_tasks_status_check" CHECK ("workspace"."remote_tasks"."status" in ('pending', 'done', 'dead'))
);
--> statement-breakpoint
CREATE TABLE "workspace"."sandbox_issuances" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"name" text NOT NULL,
	"requested_by" uuid,
	"status" text DEFAULT 'pending' NOT NULL,
	"platform_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	CONSTRAINT "sandbox_issuances_status_check" CHECK ("workspace"."sandbox_issuances"."status" in ('pending', 'completed', 'failed', 'abandoned'))
);
--> statement-breakpoint
ALTER TABLE "workspace"."sandbox_issuances" ADD CONSTRAINT "sandbox_issuances_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspace"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "remote_tasks_due_idx" ON "workspace"."remote_tasks" USING btree ("next_attempt_at") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "remote_tasks_workspace_idx" ON "workspace"."remote_tasks" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "sandbox_issuances_workspace_idx" ON "workspace"."sandbox_issuances" USING btree ("workspace_id","status");