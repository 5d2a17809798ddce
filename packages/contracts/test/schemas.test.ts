import { Kind, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import * as contracts from '../src/index.js';

function isSchema(value: unknown): value is TSchema {
  return typeof value === 'object' && value !== null && Kind in value;
}

const exported = Object.entries(contracts).filter((entry): entry is [string, TSchema] => isSchema(entry[1]));
const payloads = Object.entries(contracts.EVENT_PAYLOADS);

// Fastify validates HTTP with Ajv; messaging validates NATS payloads with TypeBox. Both must accept the schemas.
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

describe('every exported schema', () => {
  it('exports a meaningful number of schemas', () => {
    expect(exported.length).toBeGreaterThan(15);
  });

  it.each([...exported, ...payloads])('%s compiles with TypeBox and Ajv', (_name, schema) => {
    expect(() => TypeCompiler.Compile(schema)).not.toThrow();
    const { $id: _ignored, ...withoutId } = schema;
    expect(() => ajv.compile(withoutId)).not.toThrow();
  });

  it.each(exported.filter(([, s]) => Array.isArray(s.examples)))('%s accepts its own examples', (_name, schema) => {
    for (const example of schema.examples as unknown[]) {
      expect([...Value.Errors(schema, example)]).toEqual([]);
    }
  });
});

describe('error codes', () => {
  it('maps every code to one 4xx or 5xx status', () => {
    for (const code of contracts.ERROR_CODES) {
      const status = contracts.errorStatus(code);
      expect(status).toBeGreaterThanOrEqual(400);
      expect(status).toBeLessThan(600);
      expect(code).toMatch(/^[A-Z][A-Z0-9_]+$/);
    }
  });
});

describe('example payloads', () => {
  it('accepts a success envelope with pagination', () => {
    const schema = contracts.SuccessEnvelope(contracts.Uuid);
    const ok = {
      success: true,
      data: '2b1d5e9e-7c1f-4d3a-9a63-2f7a1f0c9e11',
      meta: { timestamp: '2026-11-21T10:00:00.000Z', requestId: 'req_1', pagination: contracts.paginationMeta(1, 20, 41) },
    };
    expect(Value.Check(schema, ok)).toBe(true);
    expect(ok.meta.pagination.totalPages).toBe(3);
  });

  it('refuses an error envelope without a code', () => {
    const bad = {
      success: false,
      data: null,
      error: { message: 'x', statusCode: 400 },
      meta: { timestamp: '2026-11-21T10:00:00.000Z', requestId: 'r' },
    };
    expect(Value.Check(contracts.ErrorEnvelope, bad)).toBe(false);
  });

  it('accepts one example event per event type and rejects a wrong payload', () => {
    const transaction = { id: '2b1d5e9e-7c1f-4d3a-9a63-2f7a1f0c9e11', status: 'pending' };
    const dispute = {
      id: '2b1d5e9e-7c1f-4d3a-9a63-2f7a1f0c9e12',
      transactionId: transaction.id,
      status: 'open',
      currentTier: 'tier_1_smart_contract',
    };
    const session = {
      id: '2b1d5e9e-7c1f-4d3a-9a63-2f7a1f0c9e13',
      status: 'expired',
      transactionId: null,
      amount: '25.5',
      currency: 'USDC',
      blockchainNetwork: 'base-sepolia',
      toAddress: '0xdef',
      fromAddress: null,
      customerId: null,
      metadata: { order: 'A-1' },
      expiresAt: '2026-11-21T10:30:00.000Z',
    };
    const data: Record<contracts.EventType, unknown> = {
      'transaction.created': { transaction },
      'transaction.escrowed': { transaction: { ...transaction, status: 'escrowed' }, escrowAddress: '0xabc', txHash: '0xdef' },
      'transaction.completed': { transaction: { ...transaction, status: 'completed' } },
      'transaction.failed': { transaction: { ...transaction, status: 'failed' }, reason: 'amount limit' },
      'transaction.refunded': { transaction: { ...transaction, status: 'refunded' }, reason: null },
      'transaction.rescinded': { transaction: { ...transaction, status: 'rescinded' } },
      'transaction.finality_updated': {
        transaction: { ...transaction, status: 'escrowed' },
        finality: 'finalized',
        requiredFinality: 'confirmed',
        confirmations: 64,
        blockNumber: 12,
        blockHash: '0xabc',
        txHash: '0xdef',
      },
      'transaction.reorged': {
        transaction: { ...transaction, status: 'pending' },
        reason: 'reorg',
        previousStatus: 'escrowed',
        finality: 'confirmed',
        blockNumber: 12,
        blockHash: '0xabc',
        txHash: '0xdef',
      },
      'dispute.created': { dispute },
      'dispute.resolved': { dispute: { ...dispute, status: 'resolved', outcome: 'favor_sender' } },
      'dispute.escalated': { dispute: { ...dispute, currentTier: 'tier_2_mediation' }, previousTier: 'tier_1_smart_contract' },
      'evidence.submitted': { dispute, evidence: { id: dispute.id, type: 'text', title: 'receipt', submittedBy: 'sender' } },
      'checkout.session.completed': { session: { ...session, status: 'complete', transactionId: transaction.id, fromAddress: '0xabc' } },
      'checkout.session.expired': { session },
    };
    for (const type of contracts.EVENT_TYPES) {
      const event = {
        id: 'evt_01JD2Z8Q4ZK7M2V9X3A1B2C3D4',
        type,
        createdAt: '2026-11-21T10:00:00.000Z',
        platformId: null,
        data: data[type],
      };
      expect([...Value.Errors(contracts.DomainEvent, event)].length, type).toBe(0);
    }
    const wrong = {
      id: 'evt_01JD2Z8Q4ZK7M2V9X3A1B2C3D4',
      type: 'transaction.escrowed',
      createdAt: '2026-11-21T10:00:00.000Z',
      platformId: null,
      data: { transaction },
    };
    expect(Value.Check(contracts.DomainEvent, wrong)).toBe(false);
  });

  it('builds subjects from one place', () => {
    expect(contracts.eventSubject('transaction.created')).toBe('events.payments.transaction.created');
    expect(contracts.PAYMENTS_EVENTS).toBe('events.payments.>');
    expect(contracts.chainSubject('base-sepolia', 'escrow.created')).toBe('chain.base-sepolia.escrow.created');
    expect(contracts.STREAMS.EVENTS.subjects).toEqual(['events.>']);
  });
});

describe('docs/errors.md', () => {
  it('documents every error code with its status', async () => {
    const { readFile } = await import('node:fs/promises');
    const doc = await readFile(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
    for (const code of contracts.ERROR_CODES) {
      expect(doc, code).toMatch(new RegExp(`\\|\\s*\`${code}\`\\s*\\|\\s*${contracts.errorStatus(code)}\\s*\\|`));
    }
  });
});
