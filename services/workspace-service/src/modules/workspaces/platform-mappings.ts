import type { PlatformMappingKind, PlatformMappingStatus } from '@holdfast/contracts';
import { and, asc, count, desc, eq, gte } from 'drizzle-orm';
import { findRow, insertRow } from '../../db/queries.js';
import type { Executor } from '../../db/store.js';
import { platformMappings } from './tables.js';

export type PlatformMappingRow = typeof platformMappings.$inferSelect;
export type NewPlatformMappingRow = typeof platformMappings.$inferInsert;

/**
 * Workspace -> payments platform links. The sandbox-credential operations write them (insert when
 * payments minted a platform, revoke when it was deactivated) and read the counts their limits need.
 */
export function createPlatformMappingsRepository(db: Executor) {
  return {
    list: async (
      workspaceId: string,
      filter: { kind?: PlatformMappingKind; status?: PlatformMappingStatus } = {},
    ): Promise<PlatformMappingRow[]> =>
      db
        .select()
        .from(platformMappings)
        .where(
          and(
            eq(platformMappings.workspaceId, workspaceId),
            filter.kind ? eq(platformMappings.kind, filter.kind) : undefined,
            filter.status ? eq(platformMappings.status, filter.status) : undefined,
          ),
        )
        .orderBy(desc(platformMappings.createdAt), desc(platformMappings.id)),

    findByPlatform: async (workspaceId: string, platformId: string): Promise<PlatformMappingRow | undefined> => {
      return findRow(db, platformMappings, and(eq(platformMappings.workspaceId, workspaceId), eq(platformMappings.platformId, platformId)));
    },

    insert: async (row: NewPlatformMappingRow): Promise<PlatformMappingRow> => {
      return insertRow(db, platformMappings, row);
    },

    /** Marks an active mapping revoked; undefined when there was no active one. */
    revoke: async (workspaceId: string, platformId: string): Promise<PlatformMappingRow | undefined> => {
      const [row] = await db
        .update(platformMappings)
        .set({ status: 'revoked', revokedAt: new Date() })
        .where(
          and(
            eq(platformMappings.workspaceId, workspaceId),
            eq(platformMappings.platformId, platformId),
            eq(platformMappings.status, 'active'),
          ),
        )
        .returning();
      return row;
    },

    countActive: async (workspaceId: string, kind: PlatformMappingKind): Promise<number> => {
      const [row] = await db
        .select({ total: count() })
        .from(platformMappings)
        .where(and(eq(platformMappings.workspaceId, workspaceId), eq(platformMappings.kind, kind), eq(platformMappings.status, 'active')));
      return row?.total ?? 0;
    },

    /** Mappings created since a moment (revoked ones included): the issuance-rate limit counts these. */
    countCreatedSince: async (workspaceId: string, kind: PlatformMappingKind, since: Date): Promise<number> => {
      const [row] = await db
        .select({ total: count() })
        .from(platformMappings)
        .where(and(eq(platformMappings.workspaceId, workspaceId), eq(platformMappings.kind, kind), gte(platformMappings.createdAt, since)));
      return row?.total ?? 0;
    },

    /** When each mapping created since a moment was created, oldest first (the issuance limit's Retry-After). */
    creationTimesSince: async (workspaceId: string, kind: PlatformMappingKind, since: Date): Promise<Date[]> =>
      (
        await db
          .select({ createdAt: platformMappings.createdAt })
          .from(platformMappings)
          .where(
            and(eq(platformMappings.workspaceId, workspaceId), eq(platformMappings.kind, kind), gte(platformMappings.createdAt, since)),
          )
          .orderBy(asc(platformMappings.createdAt))
      ).map((r) => r.createdAt),
  };
}

export type PlatformMappingsRepository = ReturnType<typeof createPlatformMappingsRepository>;
