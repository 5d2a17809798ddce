DROP INDEX "webhooks"."deliveries_claimed_idx";--> statement-breakpoint
ALTER TABLE "webhooks"."deliveries" ADD COLUMN "holds_slot" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- Claims taken before this migration are attempts in flight: they keep counting against the limit.
UPDATE "webhooks"."deliveries" SET "holds_slot" = true WHERE "claimed_until" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "deliveries_claimed_idx" ON "webhooks"."deliveries" USING btree ("subscription_id","claimed_until") WHERE "webhooks"."deliveries"."holds_slot";