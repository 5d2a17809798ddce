import { randomUUID } from 'node:crypto';
import { fileFixture } from '@holdfast/test-fixtures';
import { describe, expect, it } from 'vitest';
import { createSettlementReviewRepository } from '../../src/modules/settlement-review/repository.js';
import { startPaymentsEnv } from '../support/harness.js';

// The operator's desk answers each listed item with the actions taken on it. They were looked up by
// the concatenation of the item's kind and id, which no index holds, so every page read every
// operator action ever kept. Each item must be probed through (item_kind, item_id): counted here as
// rows read by sequential scans of the table in the lookup's own transaction, not timed.

const e = fileFixture(() => startPaymentsEnv());
const KEPT = 3000;

describe("the operator desk's actions of listed items", () => {
  it("reads only the listed items' actions, each item its own, in order", async () => {
    const operator = randomUUID();
    const action = (kind: string, id: string, act: string, reason: string, at: string) => e.sql`
      insert into settlement_operator_actions (id, item_kind, item_id, action, actor, actor_platform_id, reason, from_status, created_at)
      values (${randomUUID()}, ${kind}, ${id}, ${act}, 'platform:operator', ${operator}, ${reason}, 'failed', ${at}::timestamptz)`;
    // Years of other items' actions, then the three items of a page (one with none).
    await e.sql`
      insert into settlement_operator_actions (id, item_kind, item_id, action, actor, actor_platform_id, reason, from_status)
      select gen_random_uuid(), case when g % 2 = 0 then 'settlement' else 'chain_message' end, 'other-' || g, 'resolve',
        'platform:operator', ${operator}, 'old', 'failed'
      from generate_series(1, ${KEPT}::int) g`;
    const settlementId = randomUUID();
    const messageId = `msg-${randomUUID()}`;
    await action('settlement', settlementId, 'retry', 'RPC back', '2026-01-01T00:00:02Z');
    await action('settlement', settlementId, 'resolve', 'done by hand', '2026-01-01T00:00:03Z');
    await action('chain_message', messageId, 'resolve', 'duplicate event', '2026-01-01T00:00:01Z');
    // The same id under the other kind belongs to another item.
    await action('chain_message', settlementId, 'resolve', 'not this one', '2026-01-01T00:00:04Z');
    await e.sql`analyze settlement_operator_actions`;

    const repository = createSettlementReviewRepository();
    const { actions, seqRead } = await e.sql.begin(async (tx) => {
      // The plan a long-lived connection keeps.
      await tx`set local plan_cache_mode = force_generic_plan`;
      const actions = await repository.actionsOf(tx, [
        { kind: 'settlement', id: settlementId },
        { kind: 'chain_message', id: messageId },
        { kind: 'settlement', id: randomUUID() },
      ]);
      const [read] = await tx<{ n: number }[]>`
        select pg_stat_get_xact_tuples_returned('settlement_operator_actions'::regclass)::int as n`;
      return { actions, seqRead: read!.n };
    });

    expect([...actions.keys()].sort()).toEqual([`chain_message|${messageId}`, `settlement|${settlementId}`].sort());
    expect(actions.get(`settlement|${settlementId}`)).toEqual([
      expect.objectContaining({ action: 'retry', reason: 'RPC back', fromStatus: 'failed', createdAt: '2026-01-01T00:00:02.000Z' }),
      expect.objectContaining({ action: 'resolve', reason: 'done by hand', actorPlatformId: operator }),
    ]);
    expect(actions.get(`chain_message|${messageId}`)).toEqual([expect.objectContaining({ action: 'resolve', reason: 'duplicate event' })]);
    // A sequential scan returns every kept action to the filter; the index probes return none of them.
    expect(seqRead).toBeLessThan(KEPT / 10);
  });
});
