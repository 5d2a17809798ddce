// The public face of the transactions module: what other modules use of it. Another module imports
// from here, never from its files (the architecture test fails on that).

export { canonical } from './canonical.js';
export { type ControlsGate, type ControlsOutcome, noControls, type PreparedTemplate } from './controls-gate.js';
export { type MoveHook, type TransactionMoves, transactionEvent, transactionRef } from './moves.js';
export { type TransactionRow, type TransactionsRepository, toPaymentsTransaction, toTransactionRow } from './repository.js';
export type { CheckSender } from './sender-limits.js';
export { escrowInstructionsOf } from './service.js';
export {
  actionsFrom,
  type BatchStatus,
  DISPUTABLE_STATUSES,
  isRepeatedRequest,
  nextStatus,
  TRANSACTION_MOVES,
  type TransactionAction,
} from './state-machine.js';
export { addressesOf, batches } from './tables.js';
