import { createHmac } from 'node:crypto';
import { VERIFICATION_STATUSES } from '@holdfast/contracts';
import { describe, expect, it } from 'vitest';
import { signCallback, verifyCallbackSignature } from '../../src/modules/compliance/signature.js';
import { decideMove, isTerminal, VERIFICATION_TRANSITIONS } from '../../src/modules/compliance/state-machine.js';

// The pure parts of compliance: the status table and the callback signature.

describe('verification state machine', () => {
  it('lists every status, and only statuses, in its table', () => {
    expect(Object.keys(VERIFICATION_TRANSITIONS).sort()).toEqual([...VERIFICATION_STATUSES].sort());
    for (const targets of Object.values(VERIFICATION_TRANSITIONS)) for (const t of targets) expect(VERIFICATION_STATUSES).toContain(t);
  });

  it('moves pending and needs_review forward, lets an approval expire, and ends at rejected and expired', () => {
    expect(decideMove('pending', 'approved')).toBe('move');
    expect(decideMove('pending', 'needs_review')).toBe('move');
    expect(decideMove('needs_review', 'rejected')).toBe('move');
    expect(decideMove('approved', 'expired')).toBe('move');
    expect(decideMove('approved', 'rejected')).toBe('not_allowed');
    expect(decideMove('needs_review', 'pending')).toBe('not_allowed');
    expect(decideMove('approved', 'approved')).toBe('unchanged');
    expect(isTerminal('rejected') && isTerminal('expired')).toBe(true);
    expect(isTerminal('approved')).toBe(false);
  });
});

describe('callback signature', () => {
  const secret = 's'.repeat(40);
  const body = Buffer.from('{"eventId":"e1"}');
  const now = 1_767_225_600_000;
  const t = now / 1000;
  const check = (header: string | undefined, raw = body) =>
    verifyCallbackSignature(header, raw, secret, { nowMs: now, toleranceSeconds: 300 });

  it('signs HMAC-SHA256 of "<t>.<raw body>" as documented, and accepts it', () => {
    const hex = createHmac('sha256', secret).update(`${t}.${body.toString()}`).digest('hex');
    expect(signCallback(body, secret, t)).toBe(`t=${t},v1=${hex}`);
    expect(check(`t=${t},v1=${hex}`)).toEqual({ ok: true });
  });

  it('accepts any matching v1 among several (rotation) and ignores unknown schemes', () => {
    const good = signCallback(body, secret, t).split(',')[1];
    expect(check(`t=${t},v0=abc,v1=${'0'.repeat(64)},${good}`)).toEqual({ ok: true });
  });

  it('refuses missing, malformed, stale and mismatched signatures', () => {
    expect(check(undefined)).toEqual({ ok: false, reason: 'missing' });
    expect(check('  ')).toEqual({ ok: false, reason: 'missing' });
    expect(check('v1=abc')).toEqual({ ok: false, reason: 'malformed' });
    expect(check(`t=${t}`)).toEqual({ ok: false, reason: 'malformed' });
    expect(check(`t=${t},t=${t},${signCallback(body, secret, t).split(',')[1]}`)).toEqual({ ok: false, reason: 'malformed' });
    expect(check(signCallback(body, secret, t - 301))).toEqual({ ok: false, reason: 'stale' });
    expect(check(signCallback(body, secret, t + 301))).toEqual({ ok: false, reason: 'stale' });
    expect(check(signCallback(body, secret, t - 299))).toEqual({ ok: true });
    expect(check(signCallback(body, 'x'.repeat(40), t))).toEqual({ ok: false, reason: 'mismatch' });
    expect(check(signCallback(body, secret, t), Buffer.from('{"eventId":"e2"}'))).toEqual({ ok: false, reason: 'mismatch' });
  });
});
