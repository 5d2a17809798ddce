import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/store.js';

/** The PostgreSQL channel on which every instance hears that a principal's parts changed (principal-cache.ts). */
export const PRINCIPAL_CHANGES_CHANNEL = 'workspace_principal_changes';

/** Announces a change in the caller's transaction: PostgreSQL delivers it to every listener when, and only if, it commits. */
export async function notifyPrincipalChange(db: Executor, payload: string): Promise<void> {
  await db.execute(sql`select pg_notify(${PRINCIPAL_CHANGES_CHANNEL}, ${payload})`);
}
