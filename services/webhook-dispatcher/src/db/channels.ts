import type { Sql, TransactionSql } from 'postgres';

/**
 * NOTIFY channel that wakes the delivery workers of every instance: new deliveries, a resend or a
 * replay, a circuit reset, a reactivated subscription. Workers also poll, so a lost notification
 * only delays. Sent inside a transaction, it is delivered when (and only if) that commits.
 */
export const DELIVERIES_WAKE_CHANNEL = 'webhooks_deliveries';

export async function wakeDeliveryWorkers(sql: Sql | TransactionSql): Promise<void> {
  await sql`select pg_notify(${DELIVERIES_WAKE_CHANNEL}, '')`;
}
