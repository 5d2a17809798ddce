import { TRANSACTION_STATUSES, type TransactionStatus } from '@holdfast/contracts';
import { describe, expect, it } from 'vitest';
import {
  batchStatusOf,
  INITIAL_STATUSES,
  nextStatus,
  TRANSACTION_ACTIONS,
  type TransactionAction,
} from '../../src/modules/transactions/state-machine.js';

// The expected table, written out independently of the module: `state action -> next`.
const ALLOWED: Record<string, TransactionStatus> = {
  'pending require_user_action': 'pending_user_action',
  'pending_user_action complete_user_action': 'pending',
  'pending flag_for_review': 'risk_review',
  'pending_user_action flag_for_review': 'risk_review',
  'risk_review approve_review': 'pending',
  'risk_review reject_review': 'failed',
  'pending fail_control': 'failed',
  'pending_user_action fail_control': 'failed',
  'pending lock_escrow': 'escrowed',
  'pending_user_action lock_escrow': 'escrowed',
  'pending confirm_transfer': 'completed',
  'pending_user_action confirm_transfer': 'completed',
  'pending fail_transfer': 'failed',
  'pending_user_action fail_transfer': 'failed',
  'escrowed attest_release': 'in_review',
  'escrowed release': 'completed',
  'in_review release': 'completed',
  'escrowed open_dispute': 'disputed',
  'in_review open_dispute': 'disputed',
  'disputed resolve_for_receiver': 'completed',
  'disputed resolve_for_sender': 'refunded',
  'escrowed refund': 'refunded',
  'in_review refund': 'refunded',
  'disputed refund': 'refunded',
  'escrowed rescind': 'rescinded',
  'escrowed revert_escrow': 'pending',
  'in_review revert_escrow': 'pending',
  'completed void_transfer': 'failed',
};

describe('transaction state machine', () => {
  for (const status of TRANSACTION_STATUSES) {
    for (const action of TRANSACTION_ACTIONS) {
      const expected = ALLOWED[`${status} ${action}`];
      it(`${status} --${action}--> ${expected ?? 'refused'}`, () => {
        const result = nextStatus(status, action as TransactionAction);
        if (expected) expect(result).toMatchObject({ ok: true, to: expected });
        else expect(result.ok).toBe(false);
      });
    }
  }

  it('has no move out of a terminal status but the operator voiding a disputed transfer', () => {
    for (const status of ['failed', 'refunded', 'rescinded'] as const) {
      expect(TRANSACTION_ACTIONS.filter((a) => nextStatus(status, a).ok)).toEqual([]);
    }
    expect(TRANSACTION_ACTIONS.filter((a) => nextStatus('completed', a).ok)).toEqual(['void_transfer']);
  });

  it('announces each terminal and escrowed move with the event of the same name, and a reorg with transaction.reorged', () => {
    for (const action of TRANSACTION_ACTIONS) {
      for (const status of TRANSACTION_STATUSES) {
        const r = nextStatus(status, action);
        if (!r.ok) continue;
        const named = ['escrowed', 'completed', 'failed', 'refunded', 'rescinded'].includes(r.to);
        expect(r.event).toBe(action === 'revert_escrow' ? 'transaction.reorged' : named ? `transaction.${r.to}` : null);
      }
    }
  });

  it('starts only in the pre-escrow statuses', () => {
    expect(INITIAL_STATUSES).toEqual(['pending', 'pending_user_action', 'risk_review']);
  });
});

describe('batch status from its legs', () => {
  it.each([
    [['pending_user_action', 'pending_user_action'], 'pending_user_action'],
    [['escrowed', 'pending_user_action'], 'submitted'],
    [['escrowed', 'escrowed'], 'submitted'],
    [['completed', 'escrowed'], 'submitted'],
    [['completed', 'completed'], 'completed'],
    [['completed', 'refunded'], 'completed'],
    [['failed', 'failed'], 'failed'],
    [['refunded', 'rescinded'], 'failed'],
  ] as [TransactionStatus[], string][])('%j -> %s', (legs, status) => {
    expect(batchStatusOf(legs)).toBe(status);
  });
});
