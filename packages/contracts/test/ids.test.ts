import { describe, expect, it } from 'vitest';
import { newEventId, uuidv7 } from '../src/index.js';

// Every row id and event id of the services is a UUIDv7: its order is creation order, and each one
// is unique across processes.
const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('uuidv7', () => {
  it('is a version 7, RFC 9562 variant UUID whose first 48 bits are the milliseconds given', () => {
    const now = Date.UTC(2026, 10, 29, 5, 41, 0, 123);
    const id = uuidv7(now);
    expect(id).toMatch(V7);
    expect(Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16)).toBe(now);
    expect(uuidv7(0).startsWith('00000000-0000-7')).toBe(true);
  });

  it('sorts by time across milliseconds, and never repeats (20,000 in the same millisecond)', () => {
    const now = Date.now();
    const ids = Array.from({ length: 20_000 }, () => uuidv7(now));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids.slice(0, 100)) expect(id).toMatch(V7);
    expect(uuidv7(now) < uuidv7(now + 1)).toBe(true);
    expect([uuidv7(now + 2), uuidv7(now), uuidv7(now + 1)].sort().map((id) => Number.parseInt(id.slice(0, 8), 16))).toEqual(
      [now, now + 1, now + 2].map((t) => Math.floor(t / 0x10000)),
    );
  });

  it('random bits vary in every random position (not a constant or a counter)', () => {
    const ids = Array.from({ length: 200 }, () => uuidv7(1).replaceAll('-', ''));
    // Positions 13-15 (rand_a) and 17-31 (rand_b, after the variant's bits) each take many values.
    for (const position of [13, 14, 15, 17, 20, 25, 31]) expect(new Set(ids.map((id) => id[position])).size).toBeGreaterThan(8);
  });
});

describe('newEventId', () => {
  it('is evt_ and the 32 hex digits of a UUIDv7', () => {
    expect(newEventId(5)).toMatch(/^evt_0000000000057[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
  });
});
