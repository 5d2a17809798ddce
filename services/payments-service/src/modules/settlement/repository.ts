import { type SettlementKind, uuidv7 } from '@holdfast/contracts';
import { type Queryable, rowMapper } from '@holdfast/db';
import { activeTraceCarrier, type TraceCarrier } from '@holdfast/logging';
import { appliedChainMessages, settlements } from './tables.js';

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

/** An on-chain instruction as stored: the table's row type, read through the one row mapper of `@holdfast/db`. */
export type SettlementRow = typeof settlements.$inferSelect;
const toSettlement = rowMapper(settlements);

/** A handled CHAIN message as stored (applied_chain_messages). */
export type AppliedChainMessageRow = typeof appliedChainMessages.$inferSelect;
const toAppliedMessage = rowMapper(appliedChainMessages);

const traceJson = (carrier: TraceCarrier | null) => (carrier === null ? null : JSON.stringify(carrier));

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

    async findMessage(q: Queryable, messageId: string): Promise<AppliedChainMessageRow | null> {
      const rows = await q`select * from applied_chain_messages where message_id = ${messageId}`;
      const r = rows[0];
      return r ? toAppliedMessage(r) : null;
    },

    /** Writes an on-chain instruction for the settlement worker (in the caller's transaction); a repeat of the same kind is kept once. */
    async enqueue(
      tx: Queryable,
      input: { transactionId: string; kind: SettlementKind; refundBps?: number | null; notBefore?: string | null },
    ): Promise<void> {
      await tx`
        insert into settlements (id, transaction_id, kind, refund_bps, next_attempt_at, trace_context)
        values (${uuidv7()}, ${input.transactionId}, ${input.kind}, ${input.refundBps ?? null},
                greatest(now(), coalesce(${input.notBefore ?? null}::timestamptz, now())),
                ${traceJson(activeTraceCarrier())}::jsonb)
        on conflict (transaction_id, kind) do nothing`;
    },

    /** Test clock: the transaction's pending release is due now (the hold it waited for was ended). */
    async releaseDueNow(q: Queryable, transactionId: string): Promise<void> {
      await q`update settlements set next_attempt_at = now(), updated_at = now()
        where transaction_id = ${transactionId} and kind = 'release' and status = 'pending'`;
    },

    /** Due instructions, claimed for `leaseSeconds` (pending ones, and `sending` ones whose claimer went away). */
    async claimDue(tx: Queryable, limit: number, leaseSeconds: number): Promise<SettlementRow[]> {
      const rows = await tx`
        update settlements set status = 'sending', attempts = attempts + 1,
          lease_until = now() + make_interval(secs => ${leaseSeconds}), updated_at = now()
        where id in (
          select id from settlements
          where (status = 'pending' and next_attempt_at <= now()) or (status = 'sending' and lease_until < now())
          order by next_attempt_at limit ${limit} for update skip locked)
        returning *`;
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

    /** A reorg withdrew the escrow: its instructions not yet sent are superseded (nothing is paid on a removed block). */
    async supersedePending(tx: Queryable, transactionId: string): Promise<void> {
      await tx`update settlements set status = 'superseded', last_error = 'the escrow was removed by a reorg', updated_at = now()
        where transaction_id = ${transactionId} and status = 'pending'`;
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

    /** Settlement instructions still owed (pending, sending) or needing an operator (failed, superseded). */
    async countOpenByStatus(q: Queryable): Promise<Record<'pending' | 'sending' | 'failed' | 'superseded', number>> {
      const rows = await q<{ status: 'pending' | 'sending' | 'failed' | 'superseded'; total: number }[]>`
        select status, count(*)::int as total from settlements where status <> 'done' group by status`;
      const counts = { pending: 0, sending: 0, failed: 0, superseded: 0 };
      for (const row of rows) counts[row.status] = row.total;
      return counts;
    },

    /**
     * Claims a transfer log for a transaction of a platform (one per platform and log). Claims of the
     * same log are serialized on an advisory lock of the log, so a second platform's claim sees the
     * first one's. Answers the platform's holder of the log and the other platforms' claims.
     */
    async claimTransfer(
      tx: Queryable,
      c: { chainId: number; txHash: string; logIndex: number; platformId: string; transactionId: string; tagged: boolean },
    ): Promise<{ holder: string; others: { platformId: string; transactionId: string }[] }> {
      await tx`select pg_advisory_xact_lock(hashtextextended(${`claimed_transfer:${c.chainId}:${c.txHash}:${c.logIndex}`}, 0))`;
      await tx`
        insert into claimed_transfers (chain_id, tx_hash, log_index, platform_id, transaction_id, tagged)
        values (${c.chainId}, ${c.txHash}, ${c.logIndex}, ${c.platformId}, ${c.transactionId}, ${c.tagged}) on conflict do nothing`;
      const rows = await tx<{ platform_id: string; transaction_id: string }[]>`
        select platform_id, transaction_id from claimed_transfers
        where chain_id = ${c.chainId} and tx_hash = ${c.txHash} and log_index = ${c.logIndex}`;
      return {
        holder: rows.find((r) => r.platform_id === c.platformId)?.transaction_id ?? c.transactionId,
        others: rows
          .filter((r) => r.platform_id !== c.platformId)
          .map((r) => ({ platformId: r.platform_id, transactionId: r.transaction_id })),
      };
    },

    /** Opens the disputed claim of a log (again, when it was resolved); answers its id. */
    async openDisputedClaim(tx: Queryable, d: { chainId: number; network: string; txHash: string; logIndex: number }): Promise<string> {
      const rows = await tx<{ id: string }[]>`
        insert into settlement_disputed_claims (id, chain_id, network, tx_hash, log_index)
        values (${uuidv7()}, ${d.chainId}, ${d.network}, ${d.txHash}, ${d.logIndex})
        on conflict (chain_id, tx_hash, log_index) do update set status = 'open', rightful_transaction_id = null,
          resolution = null, resolved_by = null, resolved_at = null, updated_at = now()
        returning id`;
      return (rows[0] as { id: string }).id;
    },
  };
}
export type SettlementRepository = ReturnType<typeof createSettlementRepository>;
