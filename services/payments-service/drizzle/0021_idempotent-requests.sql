CREATE TABLE "payments"."idempotent_requests" (
	"platform_id" uuid NOT NULL,
	"key" text NOT NULL,
	"operation" text NOT NULL,
	"fingerprint" text NOT NULL,
	"state" text NOT NULL,
	"lease_until" timestamp with time zone NOT NULL,
	"response_status" integer,
	"response_body" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "idempotent_requests_platform_id_key_pk" PRIMARY KEY("platform_id","key")
);
--> statement-breakpoint
ALTER TABLE "payments"."idempotent_requests" ADD CONSTRAINT "idempotent_requests_platform_id_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "payments"."platforms"("id") ON DELETE no action ON UPDATE no action;