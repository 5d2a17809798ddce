import { uuidv7, type V1Scope } from '@holdfast/contracts';
import type { Queryable, Sql } from '@holdfast/db';
import { rowMapper } from '@holdfast/db';
import { recordInvalidation } from '../auth/index.js';
import { platforms } from './tables.js';

/** A platform as stored (the table's row type), and the hint of its current API key. */
export type PlatformRow = typeof platforms.$inferSelect & { apiKeyHint: string | null };

export interface NewPlatform {
  name: string;
  workspaceId: string | null;
  sandbox: boolean;
  bootstrap?: boolean;
  webhookUrl: string | null;
  settings: Record<string, unknown>;
  scopes: readonly V1Scope[];
}

export interface PlatformChanges {
  name?: string;
  webhookUrl?: string | null;
  settings?: Record<string, unknown>;
  scopes?: readonly V1Scope[];
  isActive?: boolean;
}

/** SELECT's rows: the platform's columns and its current key's `hint`. */
type PlatformDbRow = Record<string, unknown> & { hint: string | null };

const toPlatformColumns = rowMapper(platforms);
const toPlatform = (r: PlatformDbRow): PlatformRow => ({ ...toPlatformColumns(r), apiKeyHint: r.hint });

export interface PlatformsRepository {
  transaction: <T>(fn: (tx: Queryable) => Promise<T>) => Promise<T>;
  insert: (tx: Queryable, platform: NewPlatform) => Promise<PlatformRow>;
  /** Makes `keyHash` the platform's only current key; the previous one is revoked and invalidated. */
  setKey: (tx: Queryable, platformId: string, keyHash: string, hint: string) => Promise<void>;
  get: (id: string, options?: { tx?: Queryable; forUpdate?: boolean }) => Promise<PlatformRow | undefined>;
  list: (filter: { workspaceId?: string; includeInactive?: boolean }) => Promise<PlatformRow[]>;
  /** Applies the changes and invalidates cached credentials of the platform. */
  update: (tx: Queryable, id: string, changes: PlatformChanges) => Promise<PlatformRow>;
  /** Revokes the unexpired tokens of the platform's clients; returns how many. */
  revokeTokens: (tx: Queryable, platformId: string) => Promise<number>;
  findBootstrap: (q: Queryable) => Promise<PlatformRow | undefined>;
  findKeyOwner: (q: Queryable, keyHash: string) => Promise<{ platformId: string; revoked: boolean } | undefined>;
  findKey: (keyHash: string) => Promise<{ platformId: string; platformName: string; revoked: boolean; isActive: boolean } | undefined>;
  /** Serialises bootstrap at start between instances starting together. */
  lockBootstrap: (tx: Queryable) => Promise<void>;
}

const SELECT = (q: Queryable) => q`
  select p.*, k.hint
  from platforms p left join api_keys k on k.platform_id = p.id and k.revoked_at is null`;

/** A platform's `settings` (`{}` when it has none or does not exist). */
export async function readPlatformSettings(q: Queryable, platformId: string): Promise<Record<string, unknown>> {
  const rows = await q<{ settings: Record<string, unknown> }[]>`select settings from platforms where id = ${platformId}`;
  return rows[0]?.settings ?? {};
}

export function createPlatformsRepository(sql: Sql): PlatformsRepository {
  return {
    transaction: (fn) => sql.begin((tx) => fn(tx)) as never,

    insert: async (tx, p) => {
      const id = uuidv7();
      await tx`
        insert into platforms (id, name, workspace_id, sandbox, bootstrap, webhook_url, settings, scopes)
        values (${id}, ${p.name}, ${p.workspaceId}, ${p.sandbox}, ${p.bootstrap ?? false}, ${p.webhookUrl},
                ${JSON.stringify(p.settings)}::jsonb, ${tx.array([...p.scopes])})`;
      const [row] = await tx<PlatformDbRow[]>`${SELECT(tx)} where p.id = ${id}`;
      return toPlatform(row!);
    },

    setKey: async (tx, platformId, keyHash, hint) => {
      const revoked = await tx<{ id: string }[]>`
        update api_keys set revoked_at = now() where platform_id = ${platformId} and revoked_at is null returning id`;
      for (const { id } of revoked) await recordInvalidation(tx, 'api_key', id);
      await tx`insert into api_keys (id, platform_id, key_hash, hint) values (${uuidv7()}, ${platformId}, ${keyHash}, ${hint})`;
    },

    get: async (id, options = {}) => {
      const q = options.tx ?? sql;
      if (options.forUpdate) await q`select 1 from platforms where id = ${id} for update`;
      const [row] = await q<PlatformDbRow[]>`${SELECT(q)} where p.id = ${id}`;
      return row ? toPlatform(row) : undefined;
    },

    list: async (filter) => {
      const rows = await sql<PlatformDbRow[]>`
        ${SELECT(sql)}
        where (${filter.workspaceId ?? null}::uuid is null or p.workspace_id = ${filter.workspaceId ?? null}::uuid)
          and (${filter.includeInactive ?? true} or p.is_active)
        order by p.created_at desc, p.id desc`;
      return rows.map(toPlatform);
    },

    update: async (tx, id, c) => {
      await tx`
        update platforms set
          name = coalesce(${c.name ?? null}::text, name),
          webhook_url = case when ${c.webhookUrl !== undefined}::boolean then ${c.webhookUrl ?? null}::text else webhook_url end,
          settings = coalesce(${c.settings === undefined ? null : JSON.stringify(c.settings)}::jsonb, settings),
          scopes = coalesce(${c.scopes === undefined ? null : tx.array([...c.scopes])}::text[], scopes),
          is_active = coalesce(${c.isActive ?? null}::boolean, is_active),
          deactivated_at = case
            when ${c.isActive ?? null}::boolean is false and is_active then now()
            when ${c.isActive ?? null}::boolean is true then null
            else deactivated_at end,
          updated_at = now()
        where id = ${id}`;
      await recordInvalidation(tx, 'platform', id);
      const [row] = await tx<PlatformDbRow[]>`${SELECT(tx)} where p.id = ${id}`;
      return toPlatform(row!);
    },

    revokeTokens: async (tx, platformId) => {
      const rows = await tx`
        update oauth_tokens set revoked_at = now()
        where platform_id = ${platformId} and revoked_at is null and expires_at > now()
        returning id`;
      return rows.length;
    },

    findBootstrap: async (q) => {
      const [row] = await q<PlatformDbRow[]>`${SELECT(q)} where p.bootstrap`;
      return row ? toPlatform(row) : undefined;
    },

    findKeyOwner: async (q, keyHash) => {
      const [row] = await q<{ platform_id: string; revoked: boolean }[]>`
        select platform_id, revoked_at is not null as revoked from api_keys where key_hash = ${keyHash}`;
      return row ? { platformId: row.platform_id, revoked: row.revoked } : undefined;
    },

    findKey: async (keyHash) => {
      const [row] = await sql<{ platform_id: string; name: string; revoked: boolean; is_active: boolean }[]>`
        select k.platform_id, p.name, k.revoked_at is not null as revoked, p.is_active
        from api_keys k join platforms p on p.id = k.platform_id where k.key_hash = ${keyHash}`;
      return row ? { platformId: row.platform_id, platformName: row.name, revoked: row.revoked, isActive: row.is_active } : undefined;
    },

    lockBootstrap: async (tx) => {
      await tx`select pg_advisory_xact_lock(hashtext('payments.bootstrap-platform'))`;
    },
  };
}
