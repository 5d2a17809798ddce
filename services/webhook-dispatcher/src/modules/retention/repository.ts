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
        // Each batch: its ids, oldest first, through the time index (an array, so the rows go
        // through the primary key). As "id in (batch)" the planner hashed the batch and read the
        // whole table to find them, once per batch.
        const attempts = await inBatches(
          () => conn`
            delete from delivery_attempts where id = any(array(
              select id from delivery_attempts where created_at < ${before} order by created_at limit ${BATCH})) returning 1`,
        );
        // Finished deliveries only: a pending one (paused by a circuit or an inactive subscription) is kept.
        // The condition again outside: a delivery resent since the batch was read is pending, and kept.
        const deliveries = await inBatches(
          () => conn`
            delete from deliveries where id = any(array(
              select id from deliveries where status <> 'pending' and updated_at < ${before} order by updated_at limit ${BATCH}))
              and status <> 'pending' and updated_at < ${before} returning 1`,
        );
        // Whether an event has a delivery left: one probe of the deliveries' event index per old
        // event (a lateral with limit 1). As not exists, the planner hashed every delivery kept.
        const events = await inBatches(
          () => conn`
            delete from received_events where id = any(array(
              select e.id from received_events e
              left join lateral (select true as found from deliveries d where d.event_id = e.id limit 1) d on true
              where e.received_at < ${before} and d.found is null
              order by e.received_at
              limit ${BATCH})) returning 1`,
        );
        return { attempts, deliveries, events };
      });
    },
  };
}
