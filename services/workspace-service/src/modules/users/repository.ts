import type { UserRole, UserStatus } from '@holdfast/contracts';
import { and, desc, eq, sql } from 'drizzle-orm';
import { principalRowWrites } from '../../db/principal-rows.js';
import { containsText, findRow, insertRow, pageOf, uniqueViolationOf } from '../../db/queries.js';
import type { Executor } from '../../db/store.js';
import type { PrincipalChanges } from '../access/index.js';
import { users } from './tables.js';

export type UserRow = typeof users.$inferSelect;
export type NewUserRow = typeof users.$inferInsert;
export type UserPatch = Partial<Omit<NewUserRow, 'id' | 'createdAt'>>;

export interface UserListFilter {
  /** Restricts to one workspace (an ADMIN's scope, or a SUPER_ADMIN's filter). */
  workspaceId?: string;
  /** Restricts to one user (an ADMIN without a workspace sees itself). */
  onlyUserId?: string;
  role?: UserRole;
  status?: UserStatus;
  search?: string;
}

/** A unique-violation of the e-mail index (a concurrent sign-up with the same address). */
export function isDuplicateEmail(error: unknown): boolean {
  return uniqueViolationOf(error) === 'users_email_unique';
}

/** `principals`: told of every user changed or deleted (in that transaction), for the principal cache. */
export function createUsersRepository(db: Executor, principals: PrincipalChanges) {
  const writes = principalRowWrites(db, users, (id) => principals.changed(db, [`user:${id}`]));
  return {
    findById: async (id: string): Promise<UserRow | undefined> => {
      return findRow(db, users, eq(users.id, id));
    },

    findByIdForUpdate: async (id: string): Promise<UserRow | undefined> => {
      return findRow(db, users, eq(users.id, id), 'update');
    },

    findByEmail: async (email: string): Promise<UserRow | undefined> => {
      return findRow(db, users, eq(users.email, email));
    },

    insert: async (row: NewUserRow): Promise<UserRow> => {
      return insertRow(db, users, row);
    },

    update: (id: string, patch: UserPatch): Promise<UserRow> => writes.update(id, patch),

    touchLogin: async (id: string): Promise<UserRow> => {
      const [updated] = await db.update(users).set({ lastLoginAt: new Date() }).where(eq(users.id, id)).returning();
      return updated!;
    },

    delete: (id: string): Promise<void> => writes.delete(id),

    list: async (filter: UserListFilter, page: number, limit: number): Promise<{ rows: UserRow[]; total: number }> => {
      const condition = and(
        filter.workspaceId ? eq(users.workspaceId, filter.workspaceId) : undefined,
        filter.onlyUserId ? eq(users.id, filter.onlyUserId) : undefined,
        filter.role ? eq(users.role, filter.role) : undefined,
        filter.status ? eq(users.status, filter.status) : undefined,
        containsText(filter.search, [
          users.email,
          users.firstName,
          users.lastName,
          sql`coalesce(${users.firstName}, '') || ' ' || coalesce(${users.lastName}, '')`,
        ]),
      );
      return pageOf(db, users, condition, [desc(users.createdAt), desc(users.id)], page, limit);
    },

    /** The members of a workspace (for detaching them when it is deleted). */
    idsInWorkspace: async (workspaceId: string): Promise<string[]> => {
      const rows = await db.select({ id: users.id }).from(users).where(eq(users.workspaceId, workspaceId));
      return rows.map((r) => r.id);
    },
  };
}

export type UsersRepository = ReturnType<typeof createUsersRepository>;
