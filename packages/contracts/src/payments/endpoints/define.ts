import { Type } from '@sinclair/typebox';
import { Uuid } from '../../common/domain.js';

/** What several resources of the Payments API catalogue share (not exported by the package). */

export const IdParams = Type.Object({ id: Uuid });

/** The operator routes (reconciliation, settlement review): the admin scope. */
export const OPERATOR = { scopes: ['admin:platform'] } as const;

/** v1 moved funds with `write:transactions` too. */
export const V1_MOVE = { anyScope: ['write:transactions', 'move:transactions'] } as const;
