CREATE TABLE "workspace"."customer_refresh_tokens" (
	"id" uuid PRIMARY KEY NOT NULL,
	"session_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"rotated_at" timestamp with time zone,
	"replaced_by" uuid
);
--> statement-breakpoint
CREATE TABLE "workspace"."customer_sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"customer_id" uuid NOT NULL,
	"ip_address" text,
	"user_agent" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	"revoked_reason" text
);
--> statement-breakpoint
CREATE TABLE "workspace"."customers" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"external_id" text,
	"email" text NOT NULL,
	"password_hash" text,
	"first_name" text,
	"last_name" text,
	"phone_number" text,
	"date_of_birth" date,
	"address" text,
	"city" text,
	"state" text,
	"postal_code" text,
	"country" text,
	"status" text DEFAULT 'active' NOT NULL,
	"email_verified" boolean DEFAULT false NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"last_login_at" timestamp with time zone,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "customers_status_check" CHECK ("workspace"."customers"."status" in ('active', 'inactive', 'suspended', 'pending')),
	CONSTRAINT "customers_email_lower_check" CHECK ("workspace"."customers"."email" = lower("workspace"."customers"."email"))
);
--> statement-breakpoint
ALTER TABLE "workspace"."contract_deployments" ADD COLUMN "indexer_registered_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "workspace"."customer_refresh_tokens" ADD CONSTRAINT "customer_refresh_tokens_session_id_customer_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "workspace"."customer_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace"."customer_sessions" ADD CONSTRAINT "customer_sessions_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "workspace"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace"."customers" ADD CONSTRAINT "customers_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspace"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "customer_refresh_tokens_hash_unique" ON "workspace"."customer_refresh_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "customer_refresh_tokens_session_idx" ON "workspace"."customer_refresh_tokens" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "customer_sessions_customer_idx" ON "workspace"."customer_sessions" USING btree ("customer_id");--> statement-breakpoint
CREATE UNIQUE INDEX "customers_workspace_email_unique" ON "workspace"."customers" USING btree ("workspace_id","email");--> statement-breakpoint
CREATE UNIQUE INDEX "customers_workspace_external_id_unique" ON "workspace"."customers" USING btree ("workspace_id","external_id") WHERE "workspace"."customers"."external_id" is not null;--> statement-breakpoint
CREATE INDEX "customers_workspace_created_idx" ON "workspace"."customers" USING btree ("workspace_id","created_at","id");--> statement-breakpoint
CREATE INDEX "customers_created_idx" ON "workspace"."customers" USING btree ("created_at","id");--> statement-breakpoint
ALTER TABLE "workspace"."contract_deployments" ADD CONSTRAINT "contract_deployments_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspace"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace"."customer_wallets" ADD CONSTRAINT "customer_wallets_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "workspace"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace"."customer_wallets" ADD CONSTRAINT "customer_wallets_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspace"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace"."external_wallet_configs" ADD CONSTRAINT "external_wallet_configs_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspace"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace"."platform_wallet_accounts" ADD CONSTRAINT "platform_wallet_accounts_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspace"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace"."platform_wallets" ADD CONSTRAINT "platform_wallets_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspace"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace"."wallet_link_nonces" ADD CONSTRAINT "wallet_link_nonces_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspace"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace"."wallet_link_nonces" ADD CONSTRAINT "wallet_link_nonces_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "workspace"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace"."wallet_provider_configs" ADD CONSTRAINT "wallet_provider_configs_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "workspace"."workspaces"("id") ON DELETE cascade ON UPDATE no action;