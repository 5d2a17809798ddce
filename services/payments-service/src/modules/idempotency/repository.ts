import { randomUUID } from 'node:crypto';
import type { Queryable } from '@holdfast/db';
import type { idempotentRequests } from './tables.js';

/** What a retry reads of its key: the stored request and answer, and whether the holder's lease still runs. */
export type IdempotentRequestRow = Pick<
  typeof idempotentRequests.$inferSelect,
  'operation' | 'fingerprint' | 'state' | 'responseStatus' | 'responseBody'
> & { leaseActive: boolean };

/** Each claim holds its key this long; a retry after it may run the request again (ADR 47). */
export const IDEMPOTENCY_LEASE_SECONDS = 30;

export type IdempotencyRepository = ReturnType<typeof createIdempotencyRepository>;

export function createIdempotencyRepository(sql: Queryable) {
  return {
    /**
     * Takes the key for a request: inserted, or taken over from a holder whose lease ran out (its
     * process died before it finished). Answers true when this request holds the key now.
     */
    async claim(c: { platformId: string; key: string; operation: string; fingerprint: string }): Promise<string | null> {
      const token = randomUUID();
      const rows = await sql`
        insert into idempotent_requests (platform_id, key, operation, fingerprint, state, claim_token, lease_until)
        values (${c.platformId}, ${c.key}, ${c.operation}, ${c.fingerprint}, 'running', ${token},
                now() + make_interval(secs => ${IDEMPOTENCY_LEASE_SECONDS}))
        on conflict (platform_id, key) do update set lease_until = excluded.lease_until, claim_token = excluded.claim_token
          where idempotent_requests.state = 'running' and idempotent_requests.lease_until <= now()
            and idempotent_requests.operation = excluded.operation and idempotent_requests.fingerprint = excluded.fingerprint
        returning 1`;
      return rows.length === 1 ? token : null;
    },

    async find(platformId: string, key: string): Promise<IdempotentRequestRow | undefined> {
      const [row] = await sql<IdempotentRequestRow[]>`
        select operation, fingerprint, state, lease_until > now() as "leaseActive", response_status as "responseStatus",
               response_body as "responseBody"
        from idempotent_requests where platform_id = ${platformId} and key = ${key}`;
      return row;
    },

    /**
     * Stores the answer, if this claim still holds the key (a retry may have taken over a lapsed
     * lease); over the answer this claim stored in the operation's transaction too (`answer`), so
     * the serialized reply replaces the service's value.
     */
    async complete(c: { platformId: string; key: string; token: string; status: number; body: string }): Promise<void> {
      await sql`
        update idempotent_requests set state = 'done', response_status = ${c.status}, response_body = ${c.body}, completed_at = now()
        where platform_id = ${c.platformId} and key = ${c.key} and claim_token = ${c.token}`;
    },

    /**
     * Stores the answer in the operation's own transaction: committed with its effect or not at
     * all. False when this claim no longer holds the key (its lease lapsed and a retry took it):
     * the caller must roll back, or both would take effect.
     */
    async answer(tx: Queryable, c: { platformId: string; key: string; token: string; status: number; body: string }): Promise<boolean> {
      const rows = await tx`
        update idempotent_requests set state = 'done', response_status = ${c.status}, response_body = ${c.body}, completed_at = now()
        where platform_id = ${c.platformId} and key = ${c.key} and state = 'running' and claim_token = ${c.token}
        returning 1`;
      return rows.length === 1;
    },

    /** The request did not succeed: the key is free again (a retry runs it anew), if this claim still holds it. */
    async release(c: { platformId: string; key: string; token: string }): Promise<void> {
      await sql`
        delete from idempotent_requests
        where platform_id = ${c.platformId} and key = ${c.key} and state = 'running' and claim_token = ${c.token}`;
    },
  };
}
