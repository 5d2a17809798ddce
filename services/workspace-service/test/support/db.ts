import { createDatabase, type Database } from '@holdfast/db';
import { createTestDatabase } from '@holdfast/test-fixtures';
import * as tables from '../../src/db/schema.js';
import { SCHEMA_NAME } from '../../src/db/schema.js';
import type { AuditSink, WalletAuditEntry } from '../../src/modules/wallets/common/audit.js';

export type TestDb = Database<typeof tables> & { drop: () => Promise<void> };

/** A fresh migrated database for one test file, connected as workspace-service connects. */
export async function openTestDatabase(): Promise<TestDb> {
  const created = await createTestDatabase();
  const database = createDatabase({ url: created.url, schemaName: SCHEMA_NAME, tables, poolSize: 4, applicationName: 'workspace-test' });
  return {
    ...database,
    drop: async () => {
      await database.close();
      await created.drop();
    },
  };
}

/** A workspace row with nothing but its required columns, for a repository test that needs one to hang rows on. */
export async function insertBareWorkspace(database: Database<typeof tables>, id: string): Promise<void> {
  await database.sql`insert into workspace.workspaces (id, name, slug, email) values (${id}, 'W', ${`w-${id.slice(0, 8)}`}, 'w@w.test')`;
}

/** An audit sink that keeps what it is given (the audit log itself arrives with workspace tenancy). */
export function auditRecorder(): { entries: WalletAuditEntry[]; sink: AuditSink } {
  const entries: WalletAuditEntry[] = [];
  return {
    entries,
    sink: async (_tx, entry) => {
      entries.push(structuredClone(entry));
    },
  };
}
