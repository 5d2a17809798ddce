CREATE TABLE "workspace"."audit_logs" (
	"seq" bigserial NOT NULL,
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid,
	"workspace_id" uuid,
	"action" text NOT NULL,
	"resource_type" text NOT NULL,
	"resource_id" text,
	"details" text,
	"changes" jsonb,
	"success" boolean NOT NULL,
	"error_message" text,
	"ip_address" text,
	"user_agent" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workspace"."login_throttles" (
	"email_hash" text PRIMARY KEY NOT NULL,
	"failures" integer NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"locked_until" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "workspace"."platform_mappings" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"platform_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "platform_mappings_kind_check" CHECK ("workspace"."platform_mappings"."kind" in ('sandbox', 'production')),
	CONSTRAINT "platform_mappings_status_check" CHECK ("workspace"."platform_mappings"."status" in ('active', 'revoked'))
);
--> statement-breakpoint
CREATE TABLE "workspace"."refresh_tokens" (
	"id" uuid PRIMARY KEY NOT NULL,
	"session_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"rotated_at" timestamp with time zone,
	"replaced_by" uuid
);
--> statement-breakpoint
CREATE TABLE "workspace"."sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"environment" text NOT NULL,
	"ip_address" text,
	"user_agent" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	"revoked_reason" text
);
--> statement-breakpoint
CREATE TABLE "workspace"."users" (
	"id" uuid PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"first_name" text,
	"last_name" text,
	"role" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"workspace_id" uuid,
	"email_verified" boolean DEFAULT false NOT NULL,
	"avatar_path" text,
	"signup_details" jsonb,
	"last_login_at" timestamp with time zone,
	"password_changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "users_role_check" CHECK ("workspace"."users"."role" in ('SUPER_ADMIN', 'ADMIN', 'CLIENT')),
	CONSTRAINT "users_status_check" CHECK ("workspace"."users"."status" in ('active', 'inactive', 'suspended')),
	CONSTRAINT "users_email_lower_check" CHECK ("workspace"."users"."email" = lower("workspace"."users"."email"))
);
--> statement-breakpoint
CREATE TABLE "workspace"."verification_codes" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"code_hash" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workspace"."workspace_billing" (
	"workspace_id" uuid PRIMARY KEY NOT NULL,
	"plan" text DEFAULT 'sandbox' NOT NULL,
	"billing_email" text,
	"company_name" text,
	"tax_id" text,
	"updated_by" uuid,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workspace"."workspace_wallet_settings" (
	"workspace_id" uuid PRIMARY KEY NOT NULL,
	"default_network" text,
	"enabled_networks" text[] DEFAULT '{}'::text[] NOT NULL,
	"default_currency" text,
	"auto_create_customer_wallets" boolean DEFAULT false NOT NULL,
	"updated_by" uuid,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workspace"."workspaces" (
	"id" uuid PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"email" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"avatar_path" text,
	"webhook_url" text,
	"wallet_provider" text,
	"wallet_id" text,
	"custody_c_organization_id" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"billing_enabled" boolean DEFAULT false NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workspaces_status_check" CHECK ("workspace"."workspaces"."status" in ('active', 'inactive', 'suspended', 'pending')),
	CONSTRAINT "workspaces_slug_check" CHECK ("workspace"."workspaces"."slug" ~ '^[a-z0-9-]+$' and length("workspace"."workspaces"."slug") <= 255)
);
--> statement-breakpoint
ALTER TABLE "workspace"."platform_mappings" ADD CONSTRAINT "platform_mappings_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspace"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace"."refresh_tokens" ADD CONSTRAINT "refresh_tokens_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "workspace"."sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace"."sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "workspace"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace"."users" ADD CONSTRAINT "users_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspace"."workspaces"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace"."verification_codes" ADD CONSTRAINT "verification_codes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "workspace"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace"."workspace_billing" ADD CONSTRAINT "workspace_billing_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspace"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace"."workspace_wallet_settings" ADD CONSTRAINT "workspace_wallet_settings_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspace"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_logs_created_idx" ON "workspace"."audit_logs" USING btree ("created_at","seq");--> statement-breakpoint
CREATE INDEX "audit_logs_workspace_idx" ON "workspace"."audit_logs" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "audit_logs_user_idx" ON "workspace"."audit_logs" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "audit_logs_action_idx" ON "workspace"."audit_logs" USING btree ("action","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "platform_mappings_platform_unique" ON "workspace"."platform_mappings" USING btree ("platform_id");--> statement-breakpoint
CREATE INDEX "platform_mappings_workspace_idx" ON "workspace"."platform_mappings" USING btree ("workspace_id","kind","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "refresh_tokens_hash_unique" ON "workspace"."refresh_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "refresh_tokens_session_idx" ON "workspace"."refresh_tokens" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "sessions_user_idx" ON "workspace"."sessions" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_unique" ON "workspace"."users" USING btree ("email");--> statement-breakpoint
CREATE INDEX "users_workspace_idx" ON "workspace"."users" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "workspaces_slug_unique" ON "workspace"."workspaces" USING btree ("slug");--> statement-breakpoint
CREATE INDEX "workspaces_created_idx" ON "workspace"."workspaces" USING btree ("created_at","id");