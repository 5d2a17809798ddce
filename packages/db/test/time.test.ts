import { describe, expect, it } from 'vitest';
import { isoOf, isoOrNull } from '../src/time.js';

describe('isoOf', () => {
  it('rewrites PostgreSQL UTC text, other offsets and Dates as ISO 8601', () => {
    expect(isoOf('2026-11-25 11:07:44.123456+00')).toBe('2026-11-25T11:07:44.123Z');
    expect(isoOf('2026-11-25 11:07:44+00')).toBe('2026-11-25T11:07:44.000Z');
    expect(isoOf('2026-11-25 11:07:44.5+05:30')).toBe('2026-11-25T05:37:44.500Z');
    expect(isoOf('2026-11-25 11:07:44-02')).toBe('2026-11-25T13:07:44.000Z');
    expect(isoOf('2026-11-25T11:07:44.123Z')).toBe('2026-11-25T11:07:44.123Z');
    expect(isoOf(new Date('2026-11-25T11:07:44.123Z'))).toBe('2026-11-25T11:07:44.123Z');
  });

  it('keeps a null a null', () => {
    expect(isoOrNull(null)).toBeNull();
    expect(isoOrNull(undefined)).toBeNull();
    expect(isoOrNull('2026-11-25 11:07:44+00')).toBe('2026-11-25T11:07:44.000Z');
  });
});
