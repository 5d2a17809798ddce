import type { Logger } from '@holdfast/logging';
import type { SecretBox } from '@holdfast/secrets';
import type { Sql } from 'postgres';

/** A column of sealed values (docs/operations.md#rotating-data_encryption_key): where, keyed by what, bound to which context. */
export interface SealedColumn {
  /** The table, unqualified (the connection's search_path is the service's schema). */
  table: string;
  /** Its primary key column (text or uuid). */
  id: string;
  column: string;
  /** The additional data the value was sealed with, from its row id. */
  context: (id: string) => string;
  /** A boolean column that must be true for the value to be sealed (settings' `is_encrypted`). */
  onlyWhen?: string;
}

export interface ReencryptResult {
  column: string;
  /** Values moved to the current key. */
  rewritten: number;
  /** Values no held key opens (sealed with a key missing from DATA_ENCRYPTION_KEYS_PREVIOUS): left as they are. */
  unreadable: number;
}

/**
 * Re-seals every value of `columns` not sealed with the box's current key, in batches by id: one
 * conditional update per value (`where <column> = <old value>`), so a value changed meanwhile by
 * the running service is left alone and the command can run while the service serves. Safe to
 * run again: a second run finds nothing to do.
 */
export async function reencryptColumns(
  sql: Sql,
  box: SecretBox,
  columns: readonly SealedColumn[],
  logger: Logger,
  batchSize = 500,
): Promise<ReencryptResult[]> {
  const current = `v1.${box.currentKeyId}.%`;
  const results: ReencryptResult[] = [];
  for (const c of columns) {
    const result: ReencryptResult = { column: `${c.table}.${c.column}`, rewritten: 0, unreadable: 0 };
    let after = '';
    for (;;) {
      const rows = await sql<{ id: string; value: string }[]>`
        select ${sql(c.id)}::text as id, ${sql(c.column)} as value from ${sql(c.table)}
        where ${sql(c.column)} is not null and ${sql(c.column)} not like ${current}
          and ${c.onlyWhen ? sql`${sql(c.onlyWhen)}` : sql`true`} and ${sql(c.id)}::text > ${after}
        order by ${sql(c.id)}::text limit ${batchSize}`;
      for (const row of rows) {
        let resealed: string;
        try {
          const context = c.context(row.id);
          resealed = box.seal(box.open(row.value, context), context);
        } catch (error) {
          result.unreadable += 1;
          logger.warn({ column: result.column, id: row.id, err: error }, 'sealed value not readable with the configured keys');
          continue;
        }
        const updated = await sql`
          update ${sql(c.table)} set ${sql(c.column)} = ${resealed}
          where ${sql(c.id)}::text = ${row.id} and ${sql(c.column)} = ${row.value}`;
        result.rewritten += updated.count;
      }
      if (rows.length < batchSize) break;
      after = rows[rows.length - 1]!.id;
    }
    logger.info(result, 're-encrypted');
    results.push(result);
  }
  return results;
}
