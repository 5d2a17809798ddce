// Ponder's indexing functions for scripts/bench/ponder.ts: each escrow event is one row.
import { ponder } from 'ponder:registry';
import { batch, escrow } from 'ponder:schema';

ponder.on('HoldfastEscrow:EscrowCreated', async ({ event, context }) => {
  await context.db.insert(escrow).values({
    id: event.args.id,
    sender: event.args.sender,
    receiver: event.args.receiver,
    token: event.args.token,
    amount: event.args.amount,
    attester: event.args.attester,
    holdDeadline: event.args.holdDeadline,
    expiresAt: event.args.expiresAt,
    blockNumber: event.block.number,
    transactionHash: event.transaction.hash,
  });
});

ponder.on('HoldfastEscrow:BatchCreated', async ({ event, context }) => {
  await context.db.insert(batch).values({
    id: event.id,
    firstId: event.args.firstId,
    sender: event.args.sender,
    token: event.args.token,
    legCount: event.args.legCount,
    total: event.args.total,
    blockNumber: event.block.number,
  });
});
