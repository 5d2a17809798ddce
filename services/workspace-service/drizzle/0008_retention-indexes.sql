CREATE INDEX "customer_refresh_tokens_expires_idx" ON "workspace"."customer_refresh_tokens" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "refresh_tokens_expires_idx" ON "workspace"."refresh_tokens" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "wallet_link_nonces_expires_idx" ON "workspace"."wallet_link_nonces" USING btree ("expires_at");