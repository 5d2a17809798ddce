import type { CustomerStatus, WorkspaceStatus } from '@holdfast/contracts';
import { and, count, desc, eq, getTableColumns, isNull, ne, type Placeholder, type SQL, sql } from 'drizzle-orm';
import { principalRowWrites } from '../../db/principal-rows.js';
import { containsText, findRow, insertRow, uniqueViolationOf } from '../../db/queries.js';
import type { Executor } from '../../db/store.js';
import type { PrincipalChanges } from '../access/index.js';
import { sessionFamilyStatements } from '../sessions/index.js';
import { workspaces } from '../workspaces/index.js';
import { customerRefreshTokens, customerSessions, customers } from './tables.js';
import { customerWallets } from './wallet-tables.js';

export type CustomerRow = typeof customers.$inferSelect;
export type NewCustomerRow = typeof customers.$inferInsert;
export type CustomerPatch = Partial<Omit<NewCustomerRow, 'id' | 'workspaceId' | 'createdAt'>>;
/** A customer with the wallet it linked or was given (customer_wallets), if any. */
export type CustomerWithWallet = CustomerRow & { walletAddress: string | null; walletLinkedAt: Date | null };
export type CustomerSessionRow = typeof customerSessions.$inferSelect;
export type CustomerRefreshTokenRow = typeof customerRefreshTokens.$inferSelect;

export interface CustomerListFilter {
  workspaceId?: string | undefined;
  status?: CustomerStatus | undefined;
  search?: string | undefined;
}

/** The workspace a customer route names, by id or slug. */
export interface WorkspaceRef {
  id: string;
  slug: string;
  status: WorkspaceStatus;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Which unique index a write broke: `email`, `externalId`, or undefined for anything else. */
export function duplicateCustomerField(error: unknown): 'email' | 'externalId' | undefined {
  const index = uniqueViolationOf(error);
  if (index === 'customers_workspace_email_unique') return 'email';
  if (index === 'customers_workspace_external_id_unique') return 'externalId';
  return undefined;
}

const withWallet = {
  ...getTableColumns(customers),
  walletAddress: customerWallets.walletAddress,
  walletLinkedAt: customerWallets.linkedAt,
};

/** All SQL of customers and their sessions. `principals`: told of every customer or customer session changed (in that transaction). */
export function createCustomersRepository(db: Executor, principals: PrincipalChanges) {
  const writes = principalRowWrites(db, customers, (id) => principals.changed(db, [`customer:${id}`]));
  const sessionFamily = sessionFamilyStatements(db, { sessions: customerSessions, tokens: customerRefreshTokens });
  const selectWithWallet = () =>
    db.select(withWallet).from(customers).leftJoin(customerWallets, eq(customerWallets.customerId, customers.id));
  /** One page of customers, newest first, each row with the total of the condition (a subquery PostgreSQL runs once): one round trip. */
  const pageOf = (condition: SQL | undefined, window: { limit: number | Placeholder; offset: number | Placeholder }) =>
    db
      .select({
        ...withWallet,
        total: sql<number>`(${db.select({ total: count() }).from(customers).where(condition)})`.mapWith(Number),
      })
      .from(customers)
      .leftJoin(customerWallets, eq(customerWallets.customerId, customers.id))
      .where(condition)
      .orderBy(desc(customers.createdAt), desc(customers.id))
      .limit(window.limit)
      .offset(window.offset);
  let prepared: ReturnType<ReturnType<typeof pageOf>['prepare']> | undefined;
  const workspacePage = () => {
    prepared ??= pageOf(eq(customers.workspaceId, sql.placeholder('workspaceId')), {
      limit: sql.placeholder('limit'),
      offset: sql.placeholder('offset'),
    }).prepare('customers_workspace_page');
    return prepared;
  };

  return {
    /** A workspace by id (when the reference is a uuid) or slug; the id wins when both match. */
    findWorkspace: async (ref: string): Promise<WorkspaceRef | undefined> => {
      const columns = { id: workspaces.id, slug: workspaces.slug, status: workspaces.status };
      if (UUID.test(ref)) {
        const [byId] = await db.select(columns).from(workspaces).where(eq(workspaces.id, ref.toLowerCase()));
        if (byId) return byId;
      }
      const [bySlug] = await db.select(columns).from(workspaces).where(eq(workspaces.slug, ref));
      return bySlug;
    },

    findById: async (id: string): Promise<CustomerWithWallet | undefined> => {
      const [row] = await selectWithWallet().where(eq(customers.id, id));
      return row;
    },

    findByIdForUpdate: async (id: string): Promise<CustomerRow | undefined> => {
      return findRow(db, customers, eq(customers.id, id), 'update');
    },

    findByEmail: async (workspaceId: string, email: string): Promise<CustomerWithWallet | undefined> => {
      const [row] = await selectWithWallet().where(and(eq(customers.workspaceId, workspaceId), eq(customers.email, email)));
      return row;
    },

    /** The workspace of a customer (for the wallet features), or undefined. */
    workspaceOf: async (id: string): Promise<string | undefined> => {
      const [row] = await db.select({ workspaceId: customers.workspaceId }).from(customers).where(eq(customers.id, id));
      return row?.workspaceId;
    },

    /** The customer behind a token, its workspace's status and the token's session (one query; `sessionId` null: no such session). */
    findPrincipal: async (id: string, sessionId: string) => {
      const [row] = await db
        .select({
          id: customers.id,
          email: customers.email,
          status: customers.status,
          workspaceId: customers.workspaceId,
          workspaceStatus: workspaces.status,
          sessionId: customerSessions.id,
          sessionRevokedReason: customerSessions.revokedReason,
          sessionRevokedAt: customerSessions.revokedAt,
        })
        .from(customers)
        .innerJoin(workspaces, eq(workspaces.id, customers.workspaceId))
        .leftJoin(customerSessions, and(eq(customerSessions.id, sessionId), eq(customerSessions.customerId, customers.id)))
        .where(eq(customers.id, id));
      return row;
    },

    insert: async (row: NewCustomerRow): Promise<CustomerRow> => {
      return insertRow(db, customers, row);
    },

    update: (id: string, patch: CustomerPatch): Promise<CustomerRow> => writes.update(id, patch),

    touchLogin: async (id: string): Promise<void> => {
      await db.update(customers).set({ lastLoginAt: new Date() }).where(eq(customers.id, id));
    },

    delete: (id: string): Promise<void> => writes.delete(id),

    list: async (filter: CustomerListFilter, page: number, limit: number): Promise<{ rows: CustomerWithWallet[]; total: number }> => {
      const condition = and(
        filter.workspaceId ? eq(customers.workspaceId, filter.workspaceId) : undefined,
        filter.status ? eq(customers.status, filter.status) : undefined,
        containsText(filter.search, [
          customers.email,
          customers.firstName,
          customers.lastName,
          sql`coalesce(${customers.firstName}, '') || ' ' || coalesce(${customers.lastName}, '')`,
        ]),
      );
      const offset = (page - 1) * limit;
      // A workspace's unfiltered list (the list as an administrator opens it) is a prepared query:
      // its SQL is built once per pool, not on every request.
      const rows =
        filter.workspaceId && !filter.status && !filter.search
          ? await workspacePage().execute({ workspaceId: filter.workspaceId, limit, offset })
          : await pageOf(condition, { limit, offset });
      if (rows[0]) return { rows, total: rows[0].total };
      // An empty page past the first still owes the total.
      return { rows, total: page === 1 ? 0 : ((await db.select({ total: count() }).from(customers).where(condition))[0]?.total ?? 0) };
    },

    // ---- sessions -----------------------------------------------------------------------------

    createSession: async (row: typeof customerSessions.$inferInsert): Promise<CustomerSessionRow> => {
      return insertRow(db, customerSessions, row);
    },

    insertRefreshToken: sessionFamily.insertRefreshToken,

    /** The token with its session and customer, locked for the rest of the transaction (two refreshes of one token serialise). */
    findTokenForUpdate: async (tokenHash: string) => {
      const [row] = await db
        .select({ token: customerRefreshTokens, session: customerSessions, workspaceId: customers.workspaceId })
        .from(customerRefreshTokens)
        .innerJoin(customerSessions, eq(customerSessions.id, customerRefreshTokens.sessionId))
        .innerJoin(customers, eq(customers.id, customerSessions.customerId))
        .where(eq(customerRefreshTokens.tokenHash, tokenHash))
        .for('update');
      return row;
    },

    markRotated: sessionFamily.markRotated,

    touchSession: async (id: string): Promise<void> => {
      await db.update(customerSessions).set({ lastUsedAt: new Date() }).where(eq(customerSessions.id, id));
    },

    revokeSession: async (id: string, reason: string): Promise<void> => {
      await sessionFamily.revokeSession(id, reason);
      await principals.changed(db, [`customer-session:${id}`]);
    },

    /** Ends every session of a customer (suspension, e-mail change), optionally but one. Returns how many. */
    revokeCustomerSessions: async (customerId: string, reason: string, exceptSessionId?: string): Promise<number> => {
      const rows = await db
        .update(customerSessions)
        .set({ revokedAt: new Date(), revokedReason: reason })
        .where(
          and(
            eq(customerSessions.customerId, customerId),
            isNull(customerSessions.revokedAt),
            exceptSessionId ? ne(customerSessions.id, exceptSessionId) : undefined,
          ),
        )
        .returning({ id: customerSessions.id });
      await principals.changed(db, [`customer:${customerId}`]);
      return rows.length;
    },
  };
}

export type CustomersRepository = ReturnType<typeof createCustomersRepository>;
