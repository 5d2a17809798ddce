import { randomUUID } from 'node:crypto';
import { WebhookCommands } from '@holdfast/contracts';
import { publishEvent } from '@holdfast/messaging';
import { fileFixture, startReceiver } from '@holdfast/test-fixtures';
import { describe, expect, it } from 'vitest';
import { startTestDispatcher } from '../support/dispatcher.js';
import { transactionEvent } from '../support/events.js';

// A success that leaves the worker idle is not stored by a pass of its own: the next event's claim
// stores it in the same statement (ADR 41). The wait is made long here (a minute, and no poll in
// between), so that what stores the first result can only be the second event's claim.

const receiver = fileFixture(() => startReceiver(async () => ({ status: 200 })));
const dispatcher = fileFixture(() => startTestDispatcher({}, { settleWithinMs: 60_000, pollIntervalMs: 60_000 }));

interface DeliveryState {
  status: string;
  claimed: boolean;
  attempts: number;
}

async function stateOf(eventId: string): Promise<DeliveryState | undefined> {
  const [row] = await dispatcher.sql<DeliveryState[]>`
    select d.status, d.claim_token is not null as claimed,
           (select count(*)::int from webhooks.delivery_attempts a where a.delivery_id = d.id) as attempts
    from webhooks.deliveries d where d.event_id = ${eventId}`;
  return row;
}

describe('a success that leaves the delivery worker idle', () => {
  it('is stored by the statement of the next claim, its delivery claimed until then', async () => {
    const owner = { platformId: randomUUID() };
    await dispatcher.send(WebhookCommands.create, { owner, url: receiver.url('/hook'), eventTypes: ['transaction.created'] });

    const first = transactionEvent(owner);
    await publishEvent(dispatcher.nats.bus, first);
    await expect.poll(() => receiver.requests.length, { timeout: 30_000 }).toBe(1);
    // Answered, and still claimed by this instance with no attempt stored: no pass ran for it alone.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await stateOf(first.id)).toEqual({ status: 'pending', claimed: true, attempts: 0 });

    const second = transactionEvent(owner);
    await publishEvent(dispatcher.nats.bus, second);
    await expect.poll(() => receiver.requests.length, { timeout: 30_000 }).toBe(2);
    // The second event's claim stored the first attempt; the second's result waits in turn.
    expect(await stateOf(first.id)).toEqual({ status: 'succeeded', claimed: false, attempts: 1 });
    expect(await stateOf(second.id)).toMatchObject({ status: 'pending', claimed: true });
    expect(receiver.requests.map((r) => JSON.parse(r.body).id)).toEqual([first.id, second.id]);
  });
});
