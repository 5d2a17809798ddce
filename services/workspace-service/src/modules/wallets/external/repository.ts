import type { ExternalWalletType } from '@holdfast/contracts';
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Tx } from '../provider-configs/repository.js';
import type { Db } from '../providers/repository.js';
import { type ExternalWalletConfigRow, externalWalletConfigs as t } from './tables.js';

export type NewExternalWalletConfig = typeof t.$inferInsert;
export type ExternalWalletPatch = Partial<
  Pick<ExternalWalletConfigRow, 'isEnabled' | 'allowedNetworks' | 'allowedTemplateIds' | 'settings' | 'rpcProviderApiKeySealed'>
>;

/** All SQL of external wallet configs. */
export function createExternalWalletConfigRepository(db: Db) {
  return {
    transaction: <T>(work: (tx: Tx) => Promise<T>): Promise<T> => db.transaction((tx) => work(tx as Tx)),

    /** Serialises upserts of one (workspace, type): the first creates, the second updates. */
    lock: async (tx: Tx, workspaceId: string, type: ExternalWalletType): Promise<void> => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`external_wallet_configs:${workspaceId}:${type}`}))`);
    },

    list: async (workspaceId: string): Promise<ExternalWalletConfigRow[]> =>
      db.select().from(t).where(eq(t.workspaceId, workspaceId)).orderBy(asc(t.providerType)),

    /**
     * The configs with the database's time read just before them: the `asOf` payments orders the
     * sync messages by, from one clock for every instance (an instance's own clock may be behind).
     */
    listAsOf: async (workspaceId: string): Promise<{ rows: ExternalWalletConfigRow[]; asOf: string }> => {
      const [now] = await db.execute<{ as_of: string }>(sql`select to_json(clock_timestamp())#>>'{}' as as_of`);
      if (!now) throw new Error('the database answered no time');
      const rows = await db.select().from(t).where(eq(t.workspaceId, workspaceId)).orderBy(asc(t.providerType));
      return { rows, asOf: new Date(now.as_of).toISOString() };
    },

    find: async (workspaceId: string, type: ExternalWalletType, ex: Db | Tx = db): Promise<ExternalWalletConfigRow | undefined> => {
      const [row] = await ex
        .select()
        .from(t)
        .where(and(eq(t.workspaceId, workspaceId), eq(t.providerType, type)));
      return row;
    },

    insert: async (tx: Tx, row: NewExternalWalletConfig): Promise<ExternalWalletConfigRow> => {
      const [inserted] = await tx.insert(t).values(row).returning();
      if (!inserted) throw new Error('insert returned nothing');
      return inserted;
    },

    update: async (tx: Tx, id: string, patch: ExternalWalletPatch): Promise<ExternalWalletConfigRow> => {
      const [row] = await tx
        .update(t)
        .set({ ...patch, updatedAt: new Date() })
        .where(eq(t.id, id))
        .returning();
      if (!row) throw new Error(`external wallet config ${id} vanished`);
      return row;
    },

    delete: async (tx: Tx, id: string): Promise<void> => {
      await tx.delete(t).where(eq(t.id, id));
    },
  };
}
export type ExternalWalletConfigRepository = ReturnType<typeof createExternalWalletConfigRepository>;
