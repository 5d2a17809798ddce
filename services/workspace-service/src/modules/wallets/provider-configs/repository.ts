import type { CustodyProviderType } from '@holdfast/contracts';
import { and, desc, eq, inArray, isNull, ne, or, type SQL, sql } from 'drizzle-orm';
import type { PgTransaction } from 'drizzle-orm/pg-core';
import { pageOf } from '../../../db/queries.js';
import type { Db } from '../providers/repository.js';
import { walletProviderConfigs as t, type WalletProviderConfigRow } from './tables.js';

// biome-ignore lint/suspicious/noExplicitAny: a drizzle transaction of the service's schema
export type Tx = PgTransaction<any, any, any>;
type Executor = Db | Tx;

export type NewConfigRow = typeof t.$inferInsert;
export type ConfigPatch = Partial<
  Pick<
    WalletProviderConfigRow,
    'providerName' | 'walletSetId' | 'defaultWalletId' | 'isActive' | 'isDefault' | 'supportedNetworks' | 'metadata' | 'configSealed'
  >
>;

export interface ConfigFilter {
  /** Workspaces the caller may see; global configs are always visible. */
  workspaces: 'all' | readonly string[];
  isGlobal?: boolean | undefined;
  workspaceId?: string | undefined;
  providerType?: CustodyProviderType | undefined;
  isActive?: boolean | undefined;
}

function where(filter: ConfigFilter): SQL | undefined {
  const parts: (SQL | undefined)[] = [];
  if (filter.workspaces !== 'all') {
    parts.push(
      filter.workspaces.length > 0 ? or(eq(t.isGlobal, true), inArray(t.workspaceId, [...filter.workspaces])) : eq(t.isGlobal, true),
    );
  }
  if (filter.isGlobal !== undefined) parts.push(eq(t.isGlobal, filter.isGlobal));
  if (filter.workspaceId !== undefined) parts.push(eq(t.workspaceId, filter.workspaceId));
  if (filter.providerType !== undefined) parts.push(eq(t.providerType, filter.providerType));
  if (filter.isActive !== undefined) parts.push(eq(t.isActive, filter.isActive));
  return and(...parts);
}

/** The scope of a config: its workspace, or the global ones. */
function inScope(workspaceId: string | null): SQL {
  return workspaceId === null ? eq(t.isGlobal, true) : eq(t.workspaceId, workspaceId);
}

/** All SQL of the wallet provider configs. */
export function createWalletProviderConfigRepository(db: Db) {
  return {
    transaction: <T>(work: (tx: Tx) => Promise<T>): Promise<T> => db.transaction((tx) => work(tx as Tx)),

    /** Serialises changes of one scope's default flag (the unique index would otherwise fail one of two racing requests). */
    lockScope: async (tx: Tx, workspaceId: string | null): Promise<void> => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`wallet_provider_configs.default:${workspaceId ?? 'global'}`}))`);
    },

    insert: async (ex: Executor, row: NewConfigRow): Promise<WalletProviderConfigRow> => {
      const [inserted] = await ex.insert(t).values(row).returning();
      if (!inserted) throw new Error('insert returned nothing');
      return inserted;
    },

    findById: async (id: string, ex: Executor = db, forUpdate = false): Promise<WalletProviderConfigRow | undefined> => {
      const query = ex.select().from(t).where(eq(t.id, id));
      const [row] = forUpdate ? await query.for('update') : await query;
      return row;
    },

    /** Takes the default flag from every other config of the scope; returns the rows it changed. */
    clearDefault: async (ex: Executor, workspaceId: string | null, exceptId: string): Promise<WalletProviderConfigRow[]> =>
      ex
        .update(t)
        .set({ isDefault: false, version: sql`${t.version} + 1`, updatedAt: new Date() })
        .where(and(inScope(workspaceId), eq(t.isDefault, true), ne(t.id, exceptId)))
        .returning(),

    update: async (ex: Executor, id: string, patch: ConfigPatch): Promise<WalletProviderConfigRow | undefined> => {
      const [row] = await ex
        .update(t)
        .set({ ...patch, version: sql`${t.version} + 1`, updatedAt: new Date() })
        .where(eq(t.id, id))
        .returning();
      return row;
    },

    delete: async (ex: Executor, id: string): Promise<WalletProviderConfigRow | undefined> => {
      const [row] = await ex.delete(t).where(eq(t.id, id)).returning();
      return row;
    },

    list: async (filter: ConfigFilter, page: number, limit: number): Promise<{ rows: WalletProviderConfigRow[]; total: number }> => {
      return pageOf(db, t, where(filter), [desc(t.createdAt), desc(t.id)], page, limit);
    },

    /** Another config of the same type in the same scope (the oldest), if any. */
    findSameTypeInScope: async (
      providerType: CustodyProviderType,
      workspaceId: string | null,
      excludeId: string | undefined,
    ): Promise<WalletProviderConfigRow | undefined> => {
      const [row] = await db
        .select()
        .from(t)
        .where(and(eq(t.providerType, providerType), inScope(workspaceId), excludeId ? ne(t.id, excludeId) : undefined))
        .orderBy(t.createdAt, t.id)
        .limit(1);
      return row;
    },

    listAll: async (workspaceId: string | undefined): Promise<WalletProviderConfigRow[]> =>
      db
        .select()
        .from(t)
        .where(workspaceId ? or(eq(t.workspaceId, workspaceId), isNull(t.workspaceId)) : undefined)
        .orderBy(t.createdAt, t.id),

    /**
     * The config a workspace uses for a provider type: active ones only; its own before the global
     * ones; within a scope the default first, then the most recently updated.
     */
    findUsable: async (workspaceId: string, providerType: CustodyProviderType): Promise<WalletProviderConfigRow | undefined> => {
      const [row] = await db
        .select()
        .from(t)
        .where(and(eq(t.providerType, providerType), eq(t.isActive, true), or(eq(t.workspaceId, workspaceId), eq(t.isGlobal, true))))
        .orderBy(t.isGlobal, desc(t.isDefault), desc(t.updatedAt), desc(t.id))
        .limit(1);
      return row;
    },
  };
}
export type WalletProviderConfigRepository = ReturnType<typeof createWalletProviderConfigRepository>;
