import { bigint, integer, jsonb, numeric, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { createdAtString, timestamptz, timestamptzString } from '../src/columns.js';
import { rowMapper } from '../src/rows.js';

const tasks = pgTable('tasks', {
  id: uuid('id').primaryKey(),
  platformId: uuid('platform_id').notNull(),
  attempts: integer('attempts').notNull(),
  payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
  lastError: text('last_error'),
  createdAt: createdAtString(),
  completedAt: timestamptzString('completed_at'),
  blockNumber: bigint('block_number', { mode: 'number' }),
});

describe('rowMapper', () => {
  it("answers a raw row under the table's property names, timestamps as ISO 8601", () => {
    const toTask = rowMapper(tasks);
    expect(
      toTask({
        id: 'a',
        platform_id: 'p',
        attempts: 2,
        payload: { x: 1 },
        last_error: null,
        created_at: '2026-11-25 11:07:44.123456+00',
        completed_at: null,
        block_number: '12345678901',
        extra: 'not a column',
      }),
    ).toEqual({
      id: 'a',
      platformId: 'p',
      attempts: 2,
      payload: { x: 1 },
      lastError: null,
      createdAt: '2026-11-25T11:07:44.123Z',
      completedAt: null,
      blockNumber: 12345678901,
    });
  });

  it('decodes each value as its column says: int8 text as number or bigint, timestamps in date mode as Date', () => {
    const blocks = pgTable('blocks', {
      number: bigint('number', { mode: 'bigint' }).notNull(),
      nonce: bigint('nonce', { mode: 'number' }).notNull(),
      gas: numeric('gas', { mode: 'bigint' }),
      fee: numeric('fee'),
      label: jsonb('label').$type<string>(),
      seenAt: timestamptz('seen_at').notNull(),
    });
    expect(
      rowMapper(blocks)({ number: '12', nonce: '7', gas: '21000', fee: '1.50', label: '42', seen_at: '2026-11-25 11:07:44.5+00' }),
    ).toEqual({ number: 12n, nonce: 7, gas: 21000n, fee: '1.50', label: '42', seenAt: new Date('2026-11-25T11:07:44.500Z') });
  });

  it('maps only the columns a statement returns, or all but those it leaves out', () => {
    const row = { id: 'a', platform_id: 'p', attempts: 2, payload: {}, last_error: null, created_at: '2026-11-25 11:07:44+00' };
    expect(rowMapper(tasks, { only: ['id', 'attempts'] })(row)).toEqual({ id: 'a', attempts: 2 });
    expect(rowMapper(tasks, { except: ['payload', 'lastError', 'createdAt', 'completedAt'] })(row)).toEqual({
      id: 'a',
      platformId: 'p',
      attempts: 2,
    });
  });

  it('answers a column the row lacks as undefined, and null as null', () => {
    const toTask = rowMapper(tasks);
    const task = toTask({
      id: 'a',
      platform_id: 'p',
      attempts: 0,
      payload: {},
      last_error: null,
      created_at: new Date(0),
      block_number: null,
    });
    expect(task).toEqual({
      id: 'a',
      platformId: 'p',
      attempts: 0,
      payload: {},
      lastError: null,
      createdAt: '1970-01-01T00:00:00.000Z',
      blockNumber: null,
    });
    expect(task.completedAt).toBeUndefined();
  });
});
