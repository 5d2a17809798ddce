-- Payments' checkout learns a workspace's external wallet configs from a sync task queued with
-- each change. Configs stored before that task existed were never sent: queue one sync per
-- workspace holding any config, so payments' copy is complete after the upgrade. A workspace
-- whose sync is already pending gets no second one.
INSERT INTO "workspace"."remote_tasks" ("id", "kind", "payload", "workspace_id")
SELECT gen_random_uuid(), 'payments.sync-checkout-wallet-settings', jsonb_build_object('workspaceId', c.workspace_id::text), c.workspace_id
FROM (SELECT DISTINCT "workspace_id" FROM "workspace"."external_wallet_configs") c
WHERE NOT EXISTS (
  SELECT 1 FROM "workspace"."remote_tasks" t
  WHERE t.kind = 'payments.sync-checkout-wallet-settings' AND t.workspace_id = c.workspace_id AND t.status = 'pending'
);
