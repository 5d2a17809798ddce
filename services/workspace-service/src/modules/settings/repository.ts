import { and, asc, eq, isNull, type SQL } from 'drizzle-orm';
import { pageOf, updateRow } from '../../db/queries.js';
import type { Executor } from '../../db/store.js';
import { settings } from './tables.js';

export type SettingRow = typeof settings.$inferSelect;
export type NewSettingRow = typeof settings.$inferInsert;
export type SettingPatch = Partial<Pick<NewSettingRow, 'value' | 'isEncrypted' | 'category' | 'description' | 'updatedBy'>>;

/** A workspace's settings, or (null) the global ones: never both. */
export type SettingScope = string | null;

const inScope = (scope: SettingScope): SQL => (scope === null ? isNull(settings.workspaceId) : eq(settings.workspaceId, scope));

export function createSettingsRepository(db: Executor) {
  return {
    list: async (scope: SettingScope, category: string | undefined, page: number, limit: number) => {
      const condition = and(inScope(scope), category ? eq(settings.category, category) : undefined);
      return pageOf(db, settings, condition, [asc(settings.category), asc(settings.key)], page, limit);
    },

    findByKey: async (scope: SettingScope, key: string, lock = false): Promise<SettingRow | undefined> => {
      const query = db
        .select()
        .from(settings)
        .where(and(inScope(scope), eq(settings.key, key)));
      const [row] = lock ? await query.for('update') : await query;
      return row;
    },

    /** Inserts unless the scope already has the key (a concurrent insert won): undefined then. */
    insertIfAbsent: async (row: NewSettingRow): Promise<SettingRow | undefined> => {
      const [inserted] = await db.insert(settings).values(row).onConflictDoNothing().returning();
      return inserted;
    },

    update: async (id: string, patch: SettingPatch): Promise<SettingRow> => {
      return updateRow(db, settings, id, patch);
    },
  };
}

export type SettingsRepository = ReturnType<typeof createSettingsRepository>;
