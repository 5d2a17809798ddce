CREATE TABLE "workspace"."contract_deployments" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid,
	"global_template_id" text,
	"network" text NOT NULL,
	"contract_type" text DEFAULT 'escrow' NOT NULL,
	"contract_address" text,
	"factory_address" text,
	"deployment_tx_hash" text,
	"deployed_at" timestamp with time zone,
	"deployed_by" text,
	"status" text NOT NULL,
	"is_shared" boolean DEFAULT false NOT NULL,
	"verified" boolean DEFAULT false NOT NULL,
	"verified_at" timestamp with time zone,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "contract_deployments_scope_ck" CHECK (is_shared = (workspace_id is null)),
	CONSTRAINT "contract_deployments_status_ck" CHECK (status in ('pending', 'active', 'failed', 'deprecated'))
);
--> statement-breakpoint
CREATE TABLE "workspace"."customer_wallets" (
	"customer_id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"wallet_address" text NOT NULL,
	"chain_id" integer,
	"source" text NOT NULL,
	"provider_wallet_id" text,
	"blockchain" text,
	"linked_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "customer_wallets_source_ck" CHECK (source in ('siwe', 'custody_a'))
);
--> statement-breakpoint
CREATE TABLE "workspace"."external_wallet_configs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"provider_type" text NOT NULL,
	"is_enabled" boolean DEFAULT false NOT NULL,
	"allowed_networks" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"allowed_template_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"rpc_provider_api_key_sealed" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "external_wallet_configs_type_ck" CHECK (provider_type in ('EXTERNAL_WALLET_1', 'EXTERNAL_WALLET_2', 'EXTERNAL_WALLET_3', 'EXTERNAL_WALLET_4'))
);
--> statement-breakpoint
CREATE TABLE "workspace"."platform_wallet_accounts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"wallet_id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"address" text NOT NULL,
	"address_format" text NOT NULL,
	"curve" text NOT NULL,
	"path" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workspace"."platform_wallets" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"seed_sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "platform_wallets_workspace_id_unique" UNIQUE("workspace_id")
);
--> statement-breakpoint
CREATE TABLE "workspace"."wallet_link_nonces" (
	"nonce_hash" text PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"customer_id" uuid NOT NULL,
	"chain_id" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workspace"."wallet_provider_configs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid,
	"is_global" boolean DEFAULT false NOT NULL,
	"provider_type" text NOT NULL,
	"provider_name" text NOT NULL,
	"wallet_set_id" text,
	"default_wallet_id" text,
	"is_active" boolean DEFAULT true NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"supported_networks" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"config_sealed" text NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "wallet_provider_configs_scope_ck" CHECK (is_global = (workspace_id is null)),
	CONSTRAINT "wallet_provider_configs_type_ck" CHECK (provider_type in ('CUSTODY_A', 'CUSTODY_B', 'CUSTODY_C', 'CUSTODY_D'))
);
--> statement-breakpoint
ALTER TABLE "workspace"."platform_wallet_accounts" ADD CONSTRAINT "platform_wallet_accounts_wallet_id_platform_wallets_id_fk" FOREIGN KEY ("wallet_id") REFERENCES "workspace"."platform_wallets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "contract_deployments_one_live_idx" ON "workspace"."contract_deployments" USING btree (workspace_id,network,contract_type) WHERE not is_shared and status in ('pending', 'active');--> statement-breakpoint
CREATE UNIQUE INDEX "contract_deployments_shared_idx" ON "workspace"."contract_deployments" USING btree (network,lower(contract_address)) WHERE is_shared;--> statement-breakpoint
CREATE INDEX "contract_deployments_workspace_idx" ON "workspace"."contract_deployments" USING btree (workspace_id);--> statement-breakpoint
CREATE UNIQUE INDEX "customer_wallets_address_idx" ON "workspace"."customer_wallets" USING btree (workspace_id,lower(wallet_address));--> statement-breakpoint
CREATE UNIQUE INDEX "external_wallet_configs_type_idx" ON "workspace"."external_wallet_configs" USING btree ("workspace_id","provider_type");--> statement-breakpoint
CREATE UNIQUE INDEX "platform_wallet_accounts_path_idx" ON "workspace"."platform_wallet_accounts" USING btree ("wallet_id","address_format","path");--> statement-breakpoint
CREATE UNIQUE INDEX "platform_wallet_accounts_address_idx" ON "workspace"."platform_wallet_accounts" USING btree ("workspace_id","address");--> statement-breakpoint
CREATE INDEX "wallet_link_nonces_customer_idx" ON "workspace"."wallet_link_nonces" USING btree ("customer_id");--> statement-breakpoint
CREATE UNIQUE INDEX "wallet_provider_configs_one_default_idx" ON "workspace"."wallet_provider_configs" USING btree (coalesce(workspace_id, '00000000-0000-0000-0000-000000000000'::uuid)) WHERE is_default;--> statement-breakpoint
CREATE INDEX "wallet_provider_configs_scope_idx" ON "workspace"."wallet_provider_configs" USING btree (workspace_id,provider_type);