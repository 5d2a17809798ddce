import { createdAtString } from '@holdfast/db';
import { sql } from 'drizzle-orm';
import { bigserial, customType, index, text, uuid } from 'drizzle-orm/pg-core';
import { paymentsSchema } from '../../db/pg-schema.js';

const xid8 = customType<{ data: string; driverData: string }>({ dataType: () => 'xid8' });

/**
 * The credential invalidation feed: one row per revocation, deactivation or change of a
 * credential, written in the transaction that makes it. Every instance polls it (and hears the
 * NATS broadcast) to drop cached credentials; see docs/adr/0002-credential-verification.md.
 * `xid` lets the poller re-read rows of transactions that were still open at its last poll.
 */
export const credentialInvalidations = paymentsSchema.table(
  'credential_invalidations',
  {
    seq: bigserial('seq', { mode: 'number' }).primaryKey(),
    xid: xid8('xid').notNull().default(sql`pg_current_xact_id()`),
    kind: text('kind').notNull(),
    ref: uuid('ref').notNull(),
    createdAt: createdAtString(),
  },
  (t) => [index('credential_invalidations_xid_idx').on(t.xid), index('credential_invalidations_created_idx').on(t.createdAt)],
);
