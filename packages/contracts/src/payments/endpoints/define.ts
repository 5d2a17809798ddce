import { Type } from '@sinclair/typebox';
import { Uuid } from '../../common/domain.js';
import { type RequestLine, type ResourceEntry, requestOf } from '../../common/endpoint.js';
import { definePaymentsEndpoint, type PaymentsEndpoint } from '../endpoint.js';

/** What several resources of the Payments API catalogue share (not exported by the package). */

export const IdParams = Type.Object({ id: Uuid });

/** The operator routes (reconciliation, settlement review): the admin scope. */
export const OPERATOR = { scopes: ['admin:platform'] } as const;

/** v1 moved funds with `write:transactions` too. */
export const V1_MOVE = { anyScope: ['write:transactions', 'move:transactions'] } as const;

type Entry = Omit<PaymentsEndpoint, 'method' | 'path'>;

/**
 * The operations of one resource: `shared` holds what they all say (their `tags`, at least), and
 * each entry names its request line and the rest; an entry's own field wins over a shared one.
 * `const endpoint = resource({ tags: ['disputes'] })`, then `endpoint('GET /api/v2/disputes/:id', {...})`.
 */
export const resource =
  <const S extends Partial<Entry>>(shared: S) =>
  <const L extends RequestLine, const E extends Omit<Entry, keyof S> & Partial<Pick<Entry, keyof S & keyof Entry>>>(line: L, entry: E) =>
    // The spread of generic objects is typed as their plain intersection: the cast says which fields win.
    definePaymentsEndpoint({ ...requestOf(line), ...shared, ...entry } as unknown as ResourceEntry<L, S, E> &
      PaymentsEndpoint) as ResourceEntry<L, S, E>;
