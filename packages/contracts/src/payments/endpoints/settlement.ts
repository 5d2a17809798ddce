import {
  RefundBody,
  ReleaseEarlyAttestBody,
  RescindBody,
  SubmitEscrowHashBody,
  SubmitHashBody,
  TransactionOperationResult,
} from '../settlement.js';
import { IdParams, resource, V1_MOVE } from './define.js';

// settlement: the on-chain operations of a transaction (spec "named only"), renamed on v2

const SETTLEMENT_DESIGN = 'Design: docs/settlement.md.';

// Each acts on one transaction and waits on the chain: 404, 409 (its state, a pending receipt), 503.
const endpoint = resource({ tags: ['transactions'], tier: 'standard', params: IdParams, errors: [404, 409, 503] });

export const submitTransactionHash = endpoint('POST /api/v2/transactions/:id/hash', {
  v1: ['/api/v1/transactions/:id/submit-hash'],
  operationId: 'submitTransactionHash',
  summary: 'Submit the on-chain hash (raw)',
  description: `A raw transaction's ERC-20 transfer: its receipt is read on chain; a matching transfer completes the transaction, a reverted one fails it (one transaction only: 409 CONFLICT for a reverted hash that already failed another). 409 CHAIN_TRANSACTION_PENDING while it has no receipt or fewer confirmations than CHAIN_CONFIRMATIONS of its network (details.confirmations, details.required): submit it again later. ${SETTLEMENT_DESIGN}`,
  access: { scopes: ['write:transactions'] },
  body: SubmitHashBody,
  response: { 200: TransactionOperationResult },
});

export const submitEscrowHash = endpoint('POST /api/v2/transactions/:id/escrow-hash', {
  v1: ['/api/v1/transactions/:id/submit-escrow-hash'],
  operationId: 'submitEscrowHash',
  summary: 'Submit the escrow hash',
  description: `The createEscrow (or createBatch) transaction: its EscrowCreated log for this transaction id must match the transaction; the transaction is escrowed once the receipt has the network's CHAIN_CONFIRMATIONS (before: 409 CHAIN_TRANSACTION_PENDING, submit it again later). ${SETTLEMENT_DESIGN}`,
  access: { scopes: ['write:transactions'] },
  body: SubmitEscrowHashBody,
  response: { 200: TransactionOperationResult },
});

export const attestRelease = endpoint('POST /api/v2/transactions/:id/release/attest', {
  v1: ['/api/v1/transactions/:id/authorize-release'],
  operationId: 'attestRelease',
  summary: 'Attest a release',
  description: `escrowed -> in_review; Holdfast's attester releases the escrow on chain once its hold has ended, and the chain event completes the transaction. Idempotent: the same platform's attest again, once in_review or completed, answers 200 with the transaction as it is (nothing is done twice); any other status is 409 INVALID_STATE_TRANSITION. ${SETTLEMENT_DESIGN}`,
  idempotent: true,
  access: { scopes: ['move:transactions'] },
  v1Access: V1_MOVE,
  response: { 200: TransactionOperationResult },
});

export const attestEarlyRelease = endpoint('POST /api/v2/transactions/:id/release-early/attest', {
  v1: [
    '/api/v1/transactions/:id/release-early/authorize',
    { path: '/api/v1/transactions/:id/release-early/attest', operationId: 'attestEarlyReleaseAliasV1' },
  ],
  operationId: 'attestEarlyRelease',
  summary: 'Attest an early release',
  description: `Records a party's consent to an early release (verified on chain when its attestEarlyRelease hash is given, once the receipt has the network's CHAIN_CONFIRMATIONS; before: 409 CHAIN_TRANSACTION_PENDING; the same party's hash again: 200). The escrow pays the receiver when both consents are on chain. ${SETTLEMENT_DESIGN}`,
  idempotent: true,
  access: { scopes: ['move:transactions'] },
  v1Access: V1_MOVE,
  body: ReleaseEarlyAttestBody,
  response: { 200: TransactionOperationResult },
});

export const rescindTransaction = endpoint('POST /api/v2/transactions/:id/rescind', {
  v1: ['/api/v1/transactions/:id/rescind'],
  operationId: 'rescindTransaction',
  summary: 'Rescind within the hold period',
  description: `With the sender's rescind txHash: verified on chain, rescinded once its receipt has the network's CHAIN_CONFIRMATIONS (200; before: 409 CHAIN_TRANSACTION_PENDING). The hash that already rescinded it again: 200 with the transaction (idempotent). Without: the request is recorded (202) and the transaction is rescinded when the chain shows the sender's rescind. 409 HOLD_PERIOD_ENDED after the deadline. ${SETTLEMENT_DESIGN}`,
  idempotent: true,
  access: { scopes: ['reverse:transactions'] },
  v1Access: { anyScope: ['rescind:transactions', 'reverse:transactions'] },
  body: RescindBody,
  response: { 200: TransactionOperationResult, 202: TransactionOperationResult },
});

export const refundTransaction = endpoint('POST /api/v2/transactions/:id/refund', {
  v1: ['/api/v1/transactions/:id/refund'],
  operationId: 'refundTransaction',
  summary: 'Refund',
  description: `escrowed, in_review or disputed -> refunded (transaction.refunded); Holdfast's attester returns the funds on chain. Idempotent: the same platform's refund again, once refunded (on chain or still being returned), answers 200 with the transaction as it is (nothing is done twice); any other status, or a refund made by a dispute resolution, is 409 INVALID_STATE_TRANSITION. ${SETTLEMENT_DESIGN}`,
  idempotent: true,
  access: { scopes: ['reverse:transactions'] },
  v1Access: { anyScope: ['cancel:transactions', 'reverse:transactions'] },
  body: RefundBody,
  response: { 200: TransactionOperationResult },
});
