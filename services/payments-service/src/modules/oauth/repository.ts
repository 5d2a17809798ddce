import { type GrantType, type Scope, uuidv7, type V1Scope } from '@holdfast/contracts';
import type { Queryable, Sql } from '@holdfast/db';
import { rowMapper } from '@holdfast/db';
import { recordInvalidation } from '../auth/index.js';
import { oauthClients, oauthTokens } from './tables.js';

/** A client as stored (the table's row type but `deletedAt`: deleted clients are never read), and its platform's state. */
export type ClientRow = Omit<typeof oauthClients.$inferSelect, 'deletedAt'> & {
  platformActive: boolean;
  /** The platform's current scopes: what the client's tokens can use at most. */
  platformScopes: V1Scope[];
};

export interface NewClient {
  clientId: string;
  secretHash: string;
  name: string;
  description: string | null;
  platformId: string;
  workspaceId: string | null;
  scopes: readonly Scope[];
  grantTypes: readonly GrantType[];
  redirectUris: readonly string[];
}

export interface ClientChanges {
  name?: string;
  description?: string | null;
  scopes?: readonly Scope[];
  isActive?: boolean;
}

const TOKEN_COLUMNS = ['id', 'clientPk', 'platformId', 'scopes'] as const;
/** A token as verification reads it: whose it is, what it may do, and its times in epoch milliseconds. */
export type TokenRow = Pick<typeof oauthTokens.$inferSelect, (typeof TOKEN_COLUMNS)[number]> & {
  issuedAtMs: number;
  expiresAtMs: number;
  revoked: boolean;
};

/** How to find a client: its public clientId or its row id, optionally only within a workspace. */
export interface ClientRef {
  clientId?: string;
  id?: string;
  workspaceId?: string;
}

/** SELECT's rows: the client's columns, and its platform's `is_active` and `scopes`. */
type ClientDbRow = Record<string, unknown> & { platform_active: boolean; platform_scopes: V1Scope[] };

const toClientColumns = rowMapper(oauthClients, { except: ['deletedAt'] });
const toClient = (r: ClientDbRow): ClientRow => ({
  ...toClientColumns(r),
  platformActive: r.platform_active,
  platformScopes: r.platform_scopes,
});

const SELECT = (q: Queryable) => q`
  select c.id, c.client_id, c.secret_hash, c.name, c.description, c.platform_id, c.workspace_id, c.scopes, c.grant_types,
         c.redirect_uris, c.is_active, c.created_at, c.updated_at, p.is_active as platform_active, p.scopes as platform_scopes
  from oauth_clients c join platforms p on p.id = c.platform_id`;

export interface OAuthRepository {
  transaction: <T>(fn: (tx: Queryable) => Promise<T>) => Promise<T>;
  insertClient: (tx: Queryable, client: NewClient) => Promise<ClientRow>;
  /** A client that is not deleted. */
  findClient: (ref: ClientRef, options?: { tx?: Queryable; forUpdate?: boolean }) => Promise<ClientRow | undefined>;
  listClients: (filter: { workspaceId: string }) => Promise<ClientRow[]>;
  /** Applies the changes and invalidates cached tokens of the client. */
  updateClient: (tx: Queryable, pk: string, changes: ClientChanges) => Promise<ClientRow>;
  markDeleted: (tx: Queryable, pk: string) => Promise<void>;
  /** Revokes the client's unexpired tokens; returns how many. Invalidates cached ones. */
  revokeClientTokens: (tx: Queryable, pk: string) => Promise<number>;
  stats: (pk: string) => Promise<{ totalTokens: number; activeTokens: number; revokedTokens: number }>;
  insertToken: (token: {
    tokenHash: string;
    clientPk: string;
    platformId: string;
    scopes: readonly Scope[];
    lifetimeSeconds: number;
  }) => Promise<TokenRow>;
  findToken: (tokenHash: string) => Promise<TokenRow | undefined>;
  /** Revokes one token; false when it was already revoked. */
  revokeToken: (tokenId: string) => Promise<boolean>;
}

/** The token statements' rows: TOKEN_COLUMNS, and the times and state they compute (an int8 is text). */
type TokenDbRow = Record<string, unknown> & { issued_ms: string; expires_ms: string; revoked: boolean };

const toTokenColumns = rowMapper(oauthTokens, { only: TOKEN_COLUMNS });
const toToken = (r: TokenDbRow): TokenRow => ({
  ...toTokenColumns(r),
  issuedAtMs: Number(r.issued_ms),
  expiresAtMs: Number(r.expires_ms),
  revoked: r.revoked,
});

export function createOAuthRepository(sql: Sql): OAuthRepository {
  async function byPk(q: Queryable, pk: string): Promise<ClientRow> {
    const [row] = await q<ClientDbRow[]>`${SELECT(q)} where c.id = ${pk}`;
    return toClient(row!);
  }

  return {
    transaction: (fn) => sql.begin((tx) => fn(tx)) as never,

    insertClient: async (tx, c) => {
      const id = uuidv7();
      await tx`
        insert into oauth_clients (id, client_id, secret_hash, name, description, platform_id, workspace_id, scopes, grant_types, redirect_uris)
        values (${id}, ${c.clientId}, ${c.secretHash}, ${c.name}, ${c.description}, ${c.platformId}, ${c.workspaceId},
                ${tx.array([...c.scopes])}, ${tx.array([...c.grantTypes])}, ${tx.array([...c.redirectUris])})`;
      return byPk(tx, id);
    },

    findClient: async (ref, options = {}) => {
      const q = options.tx ?? sql;
      const rows = await q<ClientDbRow[]>`
        ${SELECT(q)}
        where c.deleted_at is null
          and (${ref.id ?? null}::uuid is null or c.id = ${ref.id ?? null}::uuid)
          and (${ref.clientId ?? null}::text is null or c.client_id = ${ref.clientId ?? null}::text)
          and (${ref.workspaceId ?? null}::uuid is null or c.workspace_id = ${ref.workspaceId ?? null}::uuid)
        ${options.forUpdate ? q`for update of c` : q``}`;
      return rows[0] ? toClient(rows[0]) : undefined;
    },

    listClients: async ({ workspaceId }) => {
      const rows = await sql<
        ClientDbRow[]
      >`${SELECT(sql)} where c.deleted_at is null and c.workspace_id = ${workspaceId} order by c.created_at desc, c.id desc`;
      return rows.map(toClient);
    },

    updateClient: async (tx, pk, c) => {
      await tx`
        update oauth_clients set
          name = coalesce(${c.name ?? null}::text, name),
          description = case when ${c.description !== undefined}::boolean then ${c.description ?? null}::text else description end,
          scopes = coalesce(${c.scopes === undefined ? null : tx.array([...c.scopes])}::text[], scopes),
          is_active = coalesce(${c.isActive ?? null}::boolean, is_active),
          updated_at = now()
        where id = ${pk}`;
      await recordInvalidation(tx, 'client', pk);
      return byPk(tx, pk);
    },

    markDeleted: async (tx, pk) => {
      await tx`update oauth_clients set deleted_at = now(), is_active = false, updated_at = now() where id = ${pk}`;
      await recordInvalidation(tx, 'client', pk);
    },

    revokeClientTokens: async (tx, pk) => {
      const rows = await tx`
        update oauth_tokens set revoked_at = now() where client_pk = ${pk} and revoked_at is null and expires_at > now() returning id`;
      await recordInvalidation(tx, 'client', pk);
      return rows.length;
    },

    stats: async (pk) => {
      const [row] = await sql<{ total: string; active: string; revoked: string }[]>`
        select count(*) as total,
               count(*) filter (where revoked_at is null and expires_at > now()) as active,
               count(*) filter (where revoked_at is not null) as revoked
        from oauth_tokens where client_pk = ${pk}`;
      return { totalTokens: Number(row?.total ?? 0), activeTokens: Number(row?.active ?? 0), revokedTokens: Number(row?.revoked ?? 0) };
    },

    insertToken: async (t) => {
      const [row] = await sql<TokenDbRow[]>`
        insert into oauth_tokens (id, token_hash, client_pk, platform_id, scopes, expires_at)
        values (${uuidv7()}, ${t.tokenHash}, ${t.clientPk}, ${t.platformId}, ${sql.array([...t.scopes])},
                now() + make_interval(secs => ${t.lifetimeSeconds}))
        returning id, client_pk, platform_id, scopes, (extract(epoch from issued_at) * 1000)::bigint as issued_ms,
                  (extract(epoch from expires_at) * 1000)::bigint as expires_ms, false as revoked`;
      return toToken(row!);
    },

    findToken: async (tokenHash) => {
      const [row] = await sql<TokenDbRow[]>`
        select id, client_pk, platform_id, scopes, (extract(epoch from issued_at) * 1000)::bigint as issued_ms,
               (extract(epoch from expires_at) * 1000)::bigint as expires_ms, revoked_at is not null as revoked
        from oauth_tokens where token_hash = ${tokenHash}`;
      return row ? toToken(row) : undefined;
    },

    revokeToken: async (tokenId) =>
      sql.begin(async (tx) => {
        const rows = await tx`update oauth_tokens set revoked_at = now() where id = ${tokenId} and revoked_at is null returning id`;
        if (rows.length > 0) await recordInvalidation(tx, 'token', tokenId);
        return rows.length > 0;
      }) as Promise<boolean>,
  };
}
