import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import escrowArtifact from '../artifacts/HoldfastEscrow.json' with { type: 'json' };
import { holdfastEscrowAbi } from '../src/escrow/index.js';
import {
  CHAIN_EVENT_KINDS,
  type ChainEvent,
  type ChainEventKind,
  ChainEvent as ChainEventSchema,
  chainEventId,
  chainMessageId,
  chainNetworkFilter,
  chainSubject,
} from '../src/index.js';

const A = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const B = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const TX = `0x${'ab'.repeat(32)}`;

const common = {
  eventId: chainEventId(84532, TX, 3),
  removed: false,
  network: 'base-sepolia',
  chainId: 84532,
  contractAddress: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
  blockNumber: 7,
  blockHash: `0x${'cd'.repeat(32)}`,
  blockTimestamp: '2026-11-21T10:00:00.000Z',
  transactionHash: TX,
  logIndex: 3,
  escrowId: '0x000000000000000000000000000000002b1d5e9e7c1f4d3a9a632f7a1f0c9e11',
  transactionId: '2b1d5e9e-7c1f-4d3a-9a63-2f7a1f0c9e11',
} as const;

const dataOf: Record<ChainEventKind, unknown> = {
  'escrow.created': {
    sender: A,
    receiver: B,
    token: A,
    amount: '1000000',
    attester: B,
    holdDeadline: '1970-01-01T00:00:00.000Z',
    expiresAt: '2027-05-21T10:00:00.000Z',
  },
  'escrow.batch-created': { sender: A, token: B, legCount: 3, total: '3000000' },
  'escrow.released': { receiver: B, by: A, amount: '1000000', reason: 'early_release' },
  'escrow.rescinded': { sender: A, amount: '1000000' },
  'escrow.refunded': { sender: A, receiver: B, refundedToSender: '250000', paidToReceiver: '750000', refundBps: 2500 },
  'escrow.early-release-attested': { party: B },
  'escrow.frozen': { attester: B, expiresAt: '2027-05-21T10:00:00.000Z' },
};

describe('ChainEvent', () => {
  it.each(CHAIN_EVENT_KINDS)('accepts a %s event and its correction', (kind) => {
    const event = { ...common, kind, data: dataOf[kind] };
    expect([...Value.Errors(ChainEventSchema, event)]).toEqual([]);
    expect(Value.Check(ChainEventSchema, { ...event, removed: true, removedReason: 'reorg' })).toBe(true);
  });

  it('refuses a data shape of another kind, floats as amounts and unknown fields', () => {
    expect(Value.Check(ChainEventSchema, { ...common, kind: 'escrow.created', data: dataOf['escrow.rescinded'] })).toBe(false);
    expect(Value.Check(ChainEventSchema, { ...common, kind: 'escrow.rescinded', data: { sender: A, amount: '1.5' } })).toBe(false);
    expect(Value.Check(ChainEventSchema, { ...common, kind: 'escrow.rescinded', data: dataOf['escrow.rescinded'], extra: 1 })).toBe(false);
    expect(Value.Check(ChainEventSchema, { ...common, eventId: 'evt_x', kind: 'escrow.frozen', data: dataOf['escrow.frozen'] })).toBe(
      false,
    );
  });

  it('narrows data by kind for TypeScript', () => {
    const event = { ...common, kind: 'escrow.refunded', data: dataOf['escrow.refunded'] } as ChainEvent;
    if (event.kind === 'escrow.refunded') expect(event.data.refundBps).toBe(2500);
  });
});

describe('ids and subjects', () => {
  it('names an event by chain id, transaction hash and log index, and its later appearances by their number', () => {
    expect(chainEventId(84532, TX.toUpperCase().replace('0X', '0x'), 3)).toBe(`84532:${TX}:3`);
    expect(chainEventId(84532, TX, 3, 2)).toBe(`84532:${TX}:3:2`);
    for (const id of [chainEventId(1, TX, 0), chainEventId(1, TX, 0, 2), chainEventId(1, TX, 12, 11)]) {
      expect(Value.Check(ChainEventSchema, { ...common, eventId: id, kind: 'escrow.frozen', data: dataOf['escrow.frozen'] })).toBe(true);
    }
  });

  it('gives a correction a message id of its own', () => {
    expect(chainMessageId({ eventId: common.eventId, removed: false })).toBe(common.eventId);
    expect(chainMessageId({ eventId: common.eventId, removed: true })).toBe(`${common.eventId}:removed`);
  });

  it('publishes on chain.<network>.<kind>', () => {
    expect(chainSubject('base-sepolia', 'escrow.batch-created')).toBe('chain.base-sepolia.escrow.batch-created');
    expect(chainNetworkFilter('base-sepolia')).toBe('chain.base-sepolia.>');
  });
});

describe('the escrow ABI in @holdfast/contracts', () => {
  it('is the same as typed constant and as data, and has one CHAIN kind per escrow lifecycle event', () => {
    expect(escrowArtifact.abi).toEqual(holdfastEscrowAbi);
    const events = holdfastEscrowAbi.filter((item) => item.type === 'event').map((item) => item.name);
    expect(events.sort()).toEqual(
      [
        'BatchCreated',
        'EarlyReleaseAttested',
        'EscrowCreated',
        'EscrowFrozen',
        'EscrowRefunded',
        'EscrowReleased',
        'EscrowRescinded',
        // pay's log: no escrow, so no CHAIN kind (payments reads it from a submitted receipt; ADR 45).
        'TransferForwarded',
        // Declared by EIP-5267 (eip712Domain, read by signers); never emitted: the domain never changes.
        'EIP712DomainChanged',
      ].sort(),
    );
    expect(CHAIN_EVENT_KINDS).toHaveLength(events.length - 2);
  });
});
