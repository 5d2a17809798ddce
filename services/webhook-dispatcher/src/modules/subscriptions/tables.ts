import type { CircuitState } from '@holdfast/contracts';
import { cascadingReference, createdAtString, metadataColumn, timestamptzString, updatedAtString } from '@holdfast/db';
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, text, uuid } from 'drizzle-orm/pg-core';
import { webhooksSchema } from '../../db/pg-schema.js';

/**
 * Webhook subscriptions of both surfaces. Exactly one owner: a payments platform (Payments API v1)
 * or a workspace (Workspace API). Secrets are AES-256-GCM sealed (modules/secrets); during a
 * rotation `previous_secret_sealed` holds the older one and deliveries carry both signatures.
 * The circuit breaker's state lives here so that every dispatcher instance shares it.
 */
export const subscriptions = webhooksSchema.table(
  'subscriptions',
  {
    id: uuid('id').primaryKey(),
    platformId: uuid('platform_id'),
    workspaceId: uuid('workspace_id'),
    url: text('url').notNull(),
    eventTypes: text('event_types').array().notNull(),
    isActive: boolean('is_active').notNull().default(true),
    ipWhitelist: text('ip_whitelist').array().notNull().default(sql`'{}'::text[]`),
    metadata: metadataColumn(),
    secretSealed: text('secret_sealed').notNull(),
    previousSecretSealed: text('previous_secret_sealed'),
    rotationStartedAt: timestamptzString('rotation_started_at'),
    circuitState: text('circuit_state').$type<CircuitState>().notNull().default('CLOSED'),
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    circuitOpenedAt: timestamptzString('circuit_opened_at'),
    /** When an OPEN circuit becomes HALF_OPEN. */
    circuitHalfOpenAt: timestamptzString('circuit_half_open_at'),
    /** HALF_OPEN: the probe in flight holds this lease; no second probe until it ends or expires. */
    probeUntil: timestamptzString('probe_until'),
    /** A receiver's Retry-After (429/503): no attempt to this subscription before then. */
    pausedUntil: timestamptzString('paused_until'),
    disabledReason: text('disabled_reason'),
    createdAt: createdAtString(),
    updatedAt: updatedAtString(),
  },
  (t) => [
    check('subscriptions_one_owner', sql`num_nonnulls(${t.platformId}, ${t.workspaceId}) = 1`),
    check('subscriptions_circuit_state', sql`${t.circuitState} in ('CLOSED', 'OPEN', 'HALF_OPEN')`),
    index('subscriptions_platform_idx').on(t.platformId),
    index('subscriptions_workspace_idx').on(t.workspaceId),
    index('subscriptions_circuit_idx').on(t.circuitState).where(sql`${t.circuitState} <> 'CLOSED'`),
  ],
);

/** The subscription a row belongs to: the row is deleted with it. */
export const subscriptionIdColumn = () => cascadingReference('subscription_id', () => subscriptions.id);
