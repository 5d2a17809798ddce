import type { PgDatabase } from 'drizzle-orm/pg-core';
import type { PostgresJsDatabase, PostgresJsQueryResultHKT } from 'drizzle-orm/postgres-js';
import type * as tables from './schema.js';

export type Tables = typeof tables;
/** The database or a transaction on it: repositories run their SQL on whichever they are given. */
export type Executor = PgDatabase<PostgresJsQueryResultHKT, Tables>;

/**
 * The repositories of the service, either on the pool (`repos`) or bound to one transaction
 * (`transaction(fn)`): a service function that changes several tables does it atomically,
 * together with its audit entry.
 */
export interface Store<R> {
  repos: R;
  /**
   * Runs `fn` in one transaction. `savepoint(inner)` runs `inner` in a nested savepoint of it: an
   * error inside rolls back only what `inner` wrote, and the transaction goes on.
   */
  transaction: <T>(fn: (repos: R, savepoint: Savepoint<R>) => Promise<T>) => Promise<T>;
}

export type Savepoint<R> = <U>(inner: (repos: R) => Promise<U>) => Promise<U>;

export function createStore<R>(db: PostgresJsDatabase<Tables>, build: (executor: Executor) => R): Store<R> {
  return {
    repos: build(db),
    transaction: (fn) => db.transaction((tx) => fn(build(tx), (inner) => tx.transaction((nested) => inner(build(nested))))),
  };
}
