import { TransactionOperationResult } from '../settlement.js';
import { IdParams, resource } from './define.js';

// Test helpers: a test clock for a sandbox or local platform's own transactions (docs/test-clock.md), beyond the spec's operations.

const endpoint = resource({ tags: ['test_helpers'] });

export const advanceTransactionHold = endpoint('POST /api/v2/test_helpers/transactions/:id/advance_hold', {
  operationId: 'advanceTransactionHold',
  summary: 'Test clock: end the hold period now',
  description:
    "For a sandbox credential's platform, or any platform of a `local` deployment (else 403 `FORBIDDEN`, `details.reason: live_platform`): ends the hold period of an escrowed or in_review platform transaction now. The transaction's `holdDeadline` becomes now (the sender can no longer rescind), the chain's clock is moved to the escrow's on-chain hold deadline when it is behind (`evm_setNextBlockTimestamp` and `evm_mine` of a development chain such as anvil: every escrow on that chain ages with it), and an attested release is due at once, so `transaction.completed` follows without a dispute. A chain whose clock cannot be moved (a public testnet) is 409 `CONFLICT` with `details.reason: chain_clock_fixed` and nothing is changed: give such transactions a short hold instead (`template.holdPeriodSeconds`). Another status is 409 `INVALID_STATE_TRANSITION`. Repeating it while the transaction is held answers 200 with the transaction as it is.",
  tier: 'standard',
  access: { scopes: ['move:transactions'] },
  params: IdParams,
  response: { 200: TransactionOperationResult },
  errors: [403, 404, 409, 503],
});
