import { integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { createdAtString, timestamptzString } from '../src/columns.js';
import { rowMapper } from '../src/rows.js';

const tasks = pgTable('tasks', {
  id: uuid('id').primaryKey(),
  platformId: uuid('platform_id').notNull(),
  attempts: integer('attempts').notNull(),
  payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
  lastError: text('last_error'),
  createdAt: createdAtString(),
  completedAt: timestamptzString('completed_at'),
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
    });
  });
});
