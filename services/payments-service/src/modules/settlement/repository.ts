import { type SettlementKind, uuidv7 } from '@holdfast/contracts';
import type { Queryable } from '@holdfast/db';

export interface AppliedMessage {
  messageId: string;
  eventId: string;
  kind: string;
  removed: boolean;
  network: string;
  transactionId: string | null;
  source: 'chain' | 'api';
}

export type ChainOutcome = 'applied' | 'noop' | 'ignored' | 'rejected' | 'conflict' | 'correction_unapplied';

export interface SettlementRow {
  id: string;
  transactionId: string;
  kind: SettlementKind;
  refundBps: number | null;
  status: string;
  attempts: number;
  txHash: string | null;
}

interface SettlementDbRow {
  id: string;
  transaction_id: string;
  kind: SettlementKind;
  refund_bps: number | null;
  status: string;
  attempts: number;
  tx_hash: string | null;
}

const toSettlement = (r: SettlementDbRow): SettlementRow => ({
  id: r.id,
  transactionId: r.transaction_id,
  kind: r.kind,
  refundBps: r.refund_bps,
  status: r.status,
  attempts: r.attempts,
  txHash: r.tx_hash,
});

/** All SQL of the settlement module (postgres.js; callers pass their transaction). */
export function createSettlementRepository() {
  return {
    /** Claims a message id; false when it was handled before (at most once). Blocks on a concurrent claim of the same id. */
    async claimMessage(
      tx: Queryable,
      m: AppliedMessage,
      outcome: ChainOutcome | 'pending',
      action: string | null = null,
    ): Promise<boolean> {
      const rows = await tx`
        insert into applied_chain_messages (message_id, event_id, kind, removed, network, transaction_id, outcome, action, source)
        values (${m.messageId}, ${m.eventId}, ${m.kind}, ${m.removed}, ${m.network}, ${m.transactionId}, ${outcome}, ${action}, ${m.source})
        on conflict (message_id) do nothing
        returning message_id`;
      return rows.length === 1;
    },

    async recordOutcome(
      tx: Queryable,
      messageId: string,
      outcome: ChainOutcome,
      action: string | null,
      detail: string | null,
    ): Promise<void> {
      await tx`update applied_chain_messages set outcome = ${outcome}, action = ${action}, detail = ${detail} where message_id = ${messageId}`;
    },

    async findMessage(
      q: Queryable,
      messageId: string,
    ): Promise<{ outcome: string; action: string | null; transactionId: string | null } | null> {
      const rows = await q<{ outcome: string; action: string | null; transaction_id: string | null }[]>`
        select outcome, action, transaction_id from applied_chain_messages where message_id = ${messageId}`;
      const r = rows[0];
      return r ? { outcome: r.outcome, action: r.action, transactionId: r.transaction_id } : null;
    },

    /** Writes an on-chain instruction for the settlement worker (in the caller's transaction); a repeat of the same kind is kept once. */
    async enqueue(
      tx: Queryable,
      input: { transactionId: string; kind: SettlementKind; refundBps?: number | null; notBefore?: string | null },
    ): Promise<void> {
      await tx`
        insert into settlements (id, transaction_id, kind, refund_bps, next_attempt_at)
        values (${uuidv7()}, ${input.transactionId}, ${input.kind}, ${input.refundBps ?? null},
                greatest(now(), coalesce(${input.notBefore ?? null}::timestamptz, now())))
        on conflict (transaction_id, kind) do nothing`;
    },

    /** Due instructions, claimed for `leaseSeconds` (pending ones, and `sending` ones whose claimer went away). */
    async claimDue(tx: Queryable, limit: number, leaseSeconds: number): Promise<SettlementRow[]> {
      const rows = await tx<SettlementDbRow[]>`
        update settlements set status = 'sending', attempts = attempts + 1,
          lease_until = now() + make_interval(secs => ${leaseSeconds}), updated_at = now()
        where id in (
          select id from settlements
          where (status = 'pending' and next_attempt_at <= now()) or (status = 'sending' and lease_until < now())
          order by next_attempt_at limit ${limit} for update skip locked)
        returning id, transaction_id, kind, refund_bps, status, attempts, tx_hash`;
      return rows.map(toSettlement);
    },

    async finish(
      q: Queryable,
      id: string,
      status: 'done' | 'superseded' | 'failed',
      txHash: string | null,
      error: string | null,
    ): Promise<void> {
      await q`update settlements set status = ${status}, tx_hash = coalesce(${txHash}, tx_hash), last_error = ${error},
        lease_until = null, updated_at = now() where id = ${id}`;
    },

    /** Back to pending, due in `delayMs`; `countAttempt: false` for a planned wait (the hold has not ended). */
    async reschedule(q: Queryable, id: string, delayMs: number, error: string | null, countAttempt = true): Promise<void> {
      await q`update settlements set status = 'pending', last_error = ${error}, lease_until = null,
        attempts = attempts - ${countAttempt ? 0 : 1},
        next_attempt_at = now() + make_interval(secs => ${delayMs / 1000}), updated_at = now() where id = ${id}`;
    },

    async recordAttestation(tx: Queryable, transactionId: string, party: string, txHash: string | null, verified: boolean): Promise<void> {
      await tx`
        insert into early_release_attestations (transaction_id, party, tx_hash, verified)
        values (${transactionId}, ${party}, ${txHash}, ${verified})
        on conflict (transaction_id, party) do update set
          tx_hash = coalesce(excluded.tx_hash, early_release_attestations.tx_hash),
          verified = early_release_attestations.verified or excluded.verified`;
    },

    async hasAttestation(q: Queryable, transactionId: string, party: string, txHash: string): Promise<boolean> {
      const rows = await q`
        select 1 from early_release_attestations
        where transaction_id = ${transactionId} and party = ${party} and lower(tx_hash) = ${txHash.toLowerCase()}`;
      return rows.length > 0;
    },

    async removeChainAttestation(tx: Queryable, transactionId: string, txHash: string): Promise<void> {
      await tx`delete from early_release_attestations where transaction_id = ${transactionId} and lower(tx_hash) = ${txHash.toLowerCase()}`;
    },

    async attestations(q: Queryable, transactionId: string): Promise<{ senderAttested: boolean; receiverAttested: boolean }> {
      const rows = await q<{ party: string }[]>`select party from early_release_attestations where transaction_id = ${transactionId}`;
      return { senderAttested: rows.some((r) => r.party === 'sender'), receiverAttested: rows.some((r) => r.party === 'receiver') };
    },

    async recordRescindRequest(tx: Queryable, transactionId: string, reason: string | null, actor: string): Promise<void> {
      await tx`
        insert into rescind_requests (transaction_id, reason, actor) values (${transactionId}, ${reason}, ${actor})
        on conflict (transaction_id) do update set reason = coalesce(excluded.reason, rescind_requests.reason), actor = excluded.actor`;
    },

    async rescindReason(q: Queryable, transactionId: string): Promise<string | null> {
      const rows = await q<{ reason: string | null }[]>`select reason from rescind_requests where transaction_id = ${transactionId}`;
      return rows[0]?.reason ?? null;
    },

    /** Claims a transfer log for one transaction; answers the transaction that holds it. */
    /** Settlement instructions still owed (pending, sending) or needing an operator (failed, superseded). */
    async countOpenByStatus(q: Queryable): Promise<Record<'pending' | 'sending' | 'failed' | 'superseded', number>> {
      const rows = await q<{ status: 'pending' | 'sending' | 'failed' | 'superseded'; total: number }[]>`
        select status, count(*)::int as total from settlements where status <> 'done' group by status`;
      const counts = { pending: 0, sending: 0, failed: 0, superseded: 0 };
      for (const row of rows) counts[row.status] = row.total;
      return counts;
    },

    async claimTransfer(tx: Queryable, chainId: number, txHash: string, logIndex: number, transactionId: string): Promise<string> {
      await tx`
        insert into claimed_transfers (chain_id, tx_hash, log_index, transaction_id)
        values (${chainId}, ${txHash}, ${logIndex}, ${transactionId}) on conflict do nothing`;
      const rows = await tx<{ transaction_id: string }[]>`
        select transaction_id from claimed_transfers where chain_id = ${chainId} and tx_hash = ${txHash} and log_index = ${logIndex}`;
      return rows[0]?.transaction_id ?? transactionId;
    },
  };
}
export type SettlementRepository = ReturnType<typeof createSettlementRepository>;
