CREATE TABLE "payments"."api_keys" (
	"id" uuid PRIMARY KEY NOT NULL,
	"platform_id" uuid NOT NULL,
	"key_hash" text NOT NULL,
	"hint" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "payments"."credential_invalidations" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"xid" "xid8" DEFAULT pg_current_xact_id() NOT NULL,
	"kind" text NOT NULL,
	"ref" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments"."oauth_clients" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"secret_hash" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"platform_id" uuid NOT NULL,
	"workspace_id" uuid,
	"scopes" text[] NOT NULL,
	"grant_types" text[] NOT NULL,
	"redirect_uris" text[] DEFAULT '{}'::text[] NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "payments"."oauth_tokens" (
	"id" uuid PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"client_pk" uuid NOT NULL,
	"platform_id" uuid NOT NULL,
	"scopes" text[] NOT NULL,
	"issued_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "payments"."platforms" (
	"id" uuid PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"workspace_id" uuid,
	"sandbox" boolean DEFAULT false NOT NULL,
	"bootstrap" boolean DEFAULT false NOT NULL,
	"webhook_url" text,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"scopes" text[] NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"deactivated_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payments"."api_keys" ADD CONSTRAINT "api_keys_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "payments"."platforms"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments"."oauth_clients" ADD CONSTRAINT "oauth_clients_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "payments"."platforms"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments"."oauth_tokens" ADD CONSTRAINT "oauth_tokens_client_pk_oauth_clients_id_fk" FOREIGN KEY ("client_pk") REFERENCES "payments"."oauth_clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash_unique" ON "payments"."api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_one_current_per_platform" ON "payments"."api_keys" USING btree ("platform_id") WHERE revoked_at is null;--> statement-breakpoint
CREATE INDEX "credential_invalidations_xid_idx" ON "payments"."credential_invalidations" USING btree ("xid");--> statement-breakpoint
CREATE INDEX "credential_invalidations_created_idx" ON "payments"."credential_invalidations" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_clients_client_id_unique" ON "payments"."oauth_clients" USING btree ("client_id");--> statement-breakpoint
CREATE INDEX "oauth_clients_workspace_idx" ON "payments"."oauth_clients" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "oauth_clients_platform_idx" ON "payments"."oauth_clients" USING btree ("platform_id");--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_tokens_hash_unique" ON "payments"."oauth_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "oauth_tokens_client_idx" ON "payments"."oauth_tokens" USING btree ("client_pk","expires_at");--> statement-breakpoint
CREATE INDEX "oauth_tokens_platform_live_idx" ON "payments"."oauth_tokens" USING btree ("platform_id") WHERE revoked_at is null;--> statement-breakpoint
CREATE INDEX "platforms_workspace_idx" ON "payments"."platforms" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "platforms_bootstrap_unique" ON "payments"."platforms" USING btree ("bootstrap") WHERE bootstrap;