CREATE TABLE "indexer"."registered_contracts" (
	"network" text NOT NULL,
	"address" text NOT NULL,
	"deployment_block" bigint NOT NULL,
	"workspace_id" text NOT NULL,
	"deployment_id" text NOT NULL,
	"registered_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "registered_contracts_network_address_pk" PRIMARY KEY("network","address")
);
