import { DISPUTE_TIERS } from '@holdfast/contracts';
import { describe, expect, it } from 'vitest';
import { bpsOfDecimal, decimalOfBps } from '../../src/modules/disputes/repository.js';
import { acceptsEvidence, escalation, resolution } from '../../src/modules/disputes/state-machine.js';

describe('dispute escalation', () => {
  it('climbs one tier at a time, stamping the tier it leaves', () => {
    expect(escalation({ status: 'open', currentTier: 'tier_1_smart_contract' })).toEqual({
      ok: true,
      tier: 'tier_2_platform_mediation',
      status: 'under_review',
      completed: 'tier1CompletedAt',
    });
    expect(escalation({ status: 'under_review', currentTier: 'tier_2_platform_mediation' })).toEqual({
      ok: true,
      tier: 'tier_3_arbitration',
      status: 'in_arbitration',
      completed: 'tier2CompletedAt',
    });
  });

  it('refuses at the highest tier and once resolved', () => {
    expect(escalation({ status: 'in_arbitration', currentTier: DISPUTE_TIERS[2] })).toMatchObject({
      ok: false,
      code: 'HIGHEST_TIER_REACHED',
    });
    expect(escalation({ status: 'pending_votes', currentTier: 'tier_3_arbitration' })).toMatchObject({
      ok: false,
      code: 'HIGHEST_TIER_REACHED',
    });
    expect(escalation({ status: 'resolved', currentTier: 'tier_1_smart_contract' })).toMatchObject({ ok: false, code: 'DISPUTE_RESOLVED' });
  });

  it('accepts evidence until resolved', () => {
    for (const s of ['open', 'under_review', 'pending_votes', 'in_arbitration'] as const) expect(acceptsEvidence(s).ok).toBe(true);
    expect(acceptsEvidence('resolved')).toMatchObject({ ok: false, code: 'DISPUTE_RESOLVED' });
  });
});

describe('dispute resolution', () => {
  it('maps each outcome to its refund share and transaction move', () => {
    expect(resolution('favor_sender')).toEqual({
      ok: true,
      outcome: 'favor_sender',
      refundPercentage: 100,
      refundBps: 10000,
      action: 'resolve_for_sender',
    });
    expect(resolution('favor_sender', 100)).toMatchObject({ ok: true, refundBps: 10000 });
    expect(resolution('favor_receiver')).toMatchObject({ ok: true, refundPercentage: 0, refundBps: 0, action: 'resolve_for_receiver' });
    expect(resolution('favor_receiver', 0)).toMatchObject({ ok: true, refundBps: 0 });
    expect(resolution('partial_refund', 37.5)).toMatchObject({
      ok: true,
      refundPercentage: 37.5,
      refundBps: 3750,
      action: 'resolve_for_sender',
    });
    expect(resolution('partial_refund', 0.01)).toMatchObject({ ok: true, refundBps: 1 });
    expect(resolution('partial_refund', 12.34)).toMatchObject({ ok: true, refundBps: 1234 });
  });

  it('refuses percentages that contradict the outcome or are finer than a basis point', () => {
    expect(resolution('favor_sender', 50).ok).toBe(false);
    expect(resolution('favor_receiver', 10).ok).toBe(false);
    expect(resolution('partial_refund').ok).toBe(false);
    expect(resolution('partial_refund', 0).ok).toBe(false);
    expect(resolution('partial_refund', 100).ok).toBe(false);
    expect(resolution('partial_refund', 33.333).ok).toBe(false);
  });

  it('converts exact decimals and basis points both ways', () => {
    expect(bpsOfDecimal('37.50')).toBe(3750);
    expect(bpsOfDecimal('100.00')).toBe(10000);
    expect(bpsOfDecimal('0')).toBe(0);
    expect(bpsOfDecimal('0.5')).toBe(50);
    expect(decimalOfBps(3750)).toBe('37.50');
    expect(decimalOfBps(1)).toBe('0.01');
    expect(decimalOfBps(10000)).toBe('100.00');
  });
});
