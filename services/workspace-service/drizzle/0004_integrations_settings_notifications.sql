CREATE TABLE "workspace"."notification_preferences" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"events" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workspace"."notifications" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"event_id" text NOT NULL,
	"event_type" text NOT NULL,
	"type" text NOT NULL,
	"priority" text NOT NULL,
	"title" text NOT NULL,
	"message" text NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"is_read" boolean DEFAULT false NOT NULL,
	"read_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notifications_priority_check" CHECK ("workspace"."notifications"."priority" in ('low', 'normal', 'high'))
);
--> statement-breakpoint
CREATE TABLE "workspace"."settings" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid,
	"key" text NOT NULL,
	"value" text NOT NULL,
	"is_encrypted" boolean DEFAULT false NOT NULL,
	"category" text DEFAULT 'general' NOT NULL,
	"description" text,
	"created_by" uuid,
	"updated_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "settings_scope_key_unique" UNIQUE NULLS NOT DISTINCT("workspace_id","key"),
	CONSTRAINT "settings_key_check" CHECK ("workspace"."settings"."key" ~ '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$')
);
--> statement-breakpoint
CREATE TABLE "workspace"."workspace_integrations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"integration_id" uuid NOT NULL,
	"config" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"secrets_sealed" text,
	"secret_fields" text[] DEFAULT '{}'::text[] NOT NULL,
	"check_state" text DEFAULT 'unchecked' NOT NULL,
	"error_message" text,
	"last_validated_at" timestamp with time zone,
	"disabled_at" timestamp with time zone,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workspace_integrations_check_state_check" CHECK ("workspace"."workspace_integrations"."check_state" in ('unchecked', 'passed', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "workspace"."notification_preferences" ADD CONSTRAINT "notification_preferences_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "workspace"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace"."notifications" ADD CONSTRAINT "notifications_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "workspace"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace"."notifications" ADD CONSTRAINT "notifications_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspace"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace"."settings" ADD CONSTRAINT "settings_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspace"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace"."workspace_integrations" ADD CONSTRAINT "workspace_integrations_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspace"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "notifications_event_user_unique" ON "workspace"."notifications" USING btree ("event_id","user_id");--> statement-breakpoint
CREATE INDEX "notifications_user_created_idx" ON "workspace"."notifications" USING btree ("user_id","created_at","id");--> statement-breakpoint
CREATE INDEX "notifications_workspace_idx" ON "workspace"."notifications" USING btree ("workspace_id");--> statement-breakpoint
CREATE INDEX "notifications_user_unread_idx" ON "workspace"."notifications" USING btree ("user_id") WHERE "workspace"."notifications"."is_read" = false;--> statement-breakpoint
CREATE INDEX "settings_scope_category_idx" ON "workspace"."settings" USING btree ("workspace_id","category","key");--> statement-breakpoint
CREATE UNIQUE INDEX "workspace_integrations_kind_unique" ON "workspace"."workspace_integrations" USING btree ("workspace_id","integration_id");--> statement-breakpoint
CREATE INDEX "workspace_integrations_workspace_idx" ON "workspace"."workspace_integrations" USING btree ("workspace_id","created_at");