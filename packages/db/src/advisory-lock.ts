import type { ReservedSql, Sql } from 'postgres';

/**
 * Runs `work` on one reserved connection while holding the session advisory lock `name`, or
 * returns undefined at once when another holder (another instance) has it: a pass that one
 * instance at a time should make, the others skipping it. A session lock belongs to one
 * connection, hence the reserved one, which `work` must use for its statements.
 */
export async function withTryAdvisoryLock<T>(sql: Sql, name: string, work: (conn: ReservedSql) => Promise<T>): Promise<T | undefined> {
  const conn = await sql.reserve();
  try {
    const [lock] = await conn<{ locked: boolean }[]>`select pg_try_advisory_lock(hashtextextended(${name}, 0)) as locked`;
    if (!lock?.locked) return undefined;
    try {
      return await work(conn);
    } finally {
      await conn`select pg_advisory_unlock(hashtextextended(${name}, 0))`;
    }
  } finally {
    conn.release();
  }
}

/**
 * Runs a delete of at most `batch` rows until one deletes fewer, and returns how many went in all.
 * `deleteBatch` returns one row per row it deleted (`delete ... returning 1`).
 */
export async function deleteInBatches(deleteBatch: () => Promise<{ length: number }>, batch: number): Promise<number> {
  let total = 0;
  for (;;) {
    const n = (await deleteBatch()).length;
    total += n;
    if (n < batch) return total;
  }
}

/**
 * One retention pass: `work` runs on a reserved connection by one instance at a time (the advisory
 * lock `name`; undefined when another instance holds it), and deletes with `inBatches` (at most
 * `batch` rows a statement, repeated until one deletes fewer; returns how many went).
 */
export function sweepInBatches<T>(
  sql: Sql,
  name: string,
  batch: number,
  work: (conn: ReservedSql, inBatches: (deleteBatch: () => Promise<{ length: number }>) => Promise<number>) => Promise<T>,
): Promise<T | undefined> {
  return withTryAdvisoryLock(sql, name, (conn) => work(conn, (deleteBatch) => deleteInBatches(deleteBatch, batch)));
}
