import type { SealedColumn } from '@holdfast/db';
import { deliveryContext } from '../modules/controls/delivery.js';

/** Every column of payments holding values sealed under DATA_ENCRYPTION_KEY, and the context each is bound to. */
export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'code_deliveries', id: 'challenge_id', column: 'sealed', context: deliveryContext },
];
