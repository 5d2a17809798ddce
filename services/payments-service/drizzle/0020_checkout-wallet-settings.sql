CREATE TABLE "payments"."checkout_wallet_settings" (
	"workspace_id" uuid PRIMARY KEY NOT NULL,
	"settings" jsonb,
	"as_of" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
