import { type TSchema, Type } from '@sinclair/typebox';
import { CurrencySchema, DecimalString, NetworkSchema } from './domain.js';

// Schema parts several contracts of this package are built from. Internal: not exported from the
// package root (services use the contracts, not their parts).

/** One property per key, each of them `schema`, in the keys' order (a report by status). */
export function eachOf<K extends string, S extends TSchema>(keys: readonly K[], schema: S): { [P in K]: S } {
  return Object.fromEntries(keys.map((key) => [key, schema])) as { [P in K]: S };
}

/** The schema, or null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * What a transaction moves and where, as both APIs answer it (payments' record and the Workspace
 * API's view of the same transaction): spread into the object, in this order.
 */
export const TransferFields = {
  amount: DecimalString,
  currency: CurrencySchema,
  fromAddress: Type.String(),
  toAddress: Type.String(),
  blockchainNetwork: NetworkSchema,
  chainId: Nullable(Type.Integer()),
};
