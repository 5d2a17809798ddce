import type { SealedColumn } from '@holdfast/db';
import { secretContext } from '../modules/subscriptions/service.js';

/** Every column of the dispatcher holding values sealed under DATA_ENCRYPTION_KEY, and the context each is bound to. */
export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'subscriptions', id: 'id', column: 'secret_sealed', context: secretContext },
  { table: 'subscriptions', id: 'id', column: 'previous_secret_sealed', context: secretContext },
];
