import { type Sql, sweepInBatches } from '@holdfast/db';

const BATCH = 5000;

export type RetentionRepository = ReturnType<typeof createRetentionRepository>;

/** Deletes, in batches so that no statement holds locks for long, what is older than the cutoff. */
export function createRetentionRepository(sql: Sql) {
  return {
    /**
     * One purge pass, by one instance at a time (an advisory lock; the others skip the pass).
     * Undefined when another instance holds the lock.
     */
    purge: (cutoff: Date): Promise<{ attempts: number; deliveries: number; events: number } | undefined> => {
      const before = cutoff.toISOString();
      return sweepInBatches(sql, 'webhooks:retention', BATCH, async (conn, inBatches) => {
        const attempts = await inBatches(
          () => conn`
            delete from delivery_attempts where id in (
              select id from delivery_attempts where created_at < ${before} limit ${BATCH}) returning 1`,
        );
        // Finished deliveries only: a pending one (paused by a circuit or an inactive subscription) is kept.
        const deliveries = await inBatches(
          () => conn`
            delete from deliveries where id in (
              select id from deliveries where status <> 'pending' and updated_at < ${before} limit ${BATCH}) returning 1`,
        );
        const events = await inBatches(
          () => conn`
            delete from received_events where id in (
              select e.id from received_events e
              where e.received_at < ${before} and not exists (select 1 from deliveries d where d.event_id = e.id)
              limit ${BATCH}) returning 1`,
        );
        return { attempts, deliveries, events };
      });
    },
  };
}
