import type { CredentialInvalidationKind, PlatformFinality, Scope } from '@holdfast/contracts';
import type { Queryable, Sql } from '@holdfast/db';
import type { PlatformBilling } from './principal.js';

export interface ApiKeyLookup {
  keyId: string;
  revoked: boolean;
  platformId: string;
  platformName: string;
  workspaceId: string | null;
  sandbox: boolean;
  scopes: Scope[];
  platformActive: boolean;
  /** The platform's `settings.billing` (null: none). */
  billing: PlatformBilling | null;
  /** The platform's `settings.finality` (null: none). */
  finality: PlatformFinality | null;
}

export interface TokenLookup {
  tokenId: string;
  tokenScopes: Scope[];
  expiresAtMs: number;
  revoked: boolean;
  clientPk: string;
  clientId: string;
  clientScopes: Scope[];
  clientUsable: boolean;
  /** The platform's current scopes: a token never uses more (PLATFORM_SCOPES_NEEDED). */
  platformScopes: Scope[];
  platformId: string;
  platformName: string;
  workspaceId: string | null;
  sandbox: boolean;
  platformActive: boolean;
  /** The platform's `settings.billing` (null: none). */
  billing: PlatformBilling | null;
  /** The platform's `settings.finality` (null: none). */
  finality: PlatformFinality | null;
}

export interface Invalidation {
  seq: number;
  kind: CredentialInvalidationKind;
  ref: string;
}

export interface AuthRepository {
  findApiKey: (keyHash: string) => Promise<ApiKeyLookup | undefined>;
  findToken: (tokenHash: string) => Promise<TokenLookup | undefined>;
  /** Invalidations of transactions not yet finished at the previous poll, and the new horizon. */
  pollInvalidations: (sinceXmin: string | undefined) => Promise<{ xmin: string; rows: Invalidation[] }>;
  /** Drops invalidations older than a day: every instance applied them long ago. */
  pruneInvalidations: () => Promise<void>;
}

/** Writes an invalidation in the caller's transaction: it becomes visible exactly when the change does. */
export async function recordInvalidation(tx: Queryable, kind: CredentialInvalidationKind, ref: string): Promise<void> {
  await tx`insert into credential_invalidations (kind, ref) values (${kind}, ${ref})`;
}

export function createAuthRepository(sql: Sql): AuthRepository {
  return {
    findApiKey: async (keyHash) => {
      const [row] = await sql<
        {
          key_id: string;
          revoked: boolean;
          platform_id: string;
          name: string;
          workspace_id: string | null;
          sandbox: boolean;
          scopes: Scope[];
          is_active: boolean;
          billing: PlatformBilling | null;
          finality: PlatformFinality | null;
        }[]
      >`
        select k.id as key_id, k.revoked_at is not null as revoked, p.id as platform_id, p.name, p.workspace_id,
               p.sandbox, p.scopes, p.is_active,
               case when jsonb_typeof(p.settings -> 'billing') = 'object' then p.settings -> 'billing' end as billing,
               case when jsonb_typeof(p.settings -> 'finality') = 'object' then p.settings -> 'finality' end as finality
        from api_keys k join platforms p on p.id = k.platform_id
        where k.key_hash = ${keyHash}`;
      if (!row) return undefined;
      return {
        keyId: row.key_id,
        revoked: row.revoked,
        platformId: row.platform_id,
        platformName: row.name,
        workspaceId: row.workspace_id,
        sandbox: row.sandbox,
        scopes: row.scopes,
        platformActive: row.is_active,
        billing: row.billing,
        finality: row.finality,
      };
    },
    findToken: async (tokenHash) => {
      const [row] = await sql<
        {
          token_id: string;
          token_scopes: Scope[];
          expires_ms: string;
          revoked: boolean;
          client_pk: string;
          client_id: string;
          client_scopes: Scope[];
          client_usable: boolean;
          platform_scopes: Scope[];
          platform_id: string;
          name: string;
          workspace_id: string | null;
          sandbox: boolean;
          is_active: boolean;
          billing: PlatformBilling | null;
          finality: PlatformFinality | null;
        }[]
      >`
        select t.id as token_id, t.scopes as token_scopes, (extract(epoch from t.expires_at) * 1000)::bigint as expires_ms,
               t.revoked_at is not null as revoked, c.id as client_pk, c.client_id, c.scopes as client_scopes,
               (c.is_active and c.deleted_at is null) as client_usable, p.id as platform_id, p.name, p.workspace_id,
               p.sandbox, p.is_active, p.scopes as platform_scopes,
               case when jsonb_typeof(p.settings -> 'billing') = 'object' then p.settings -> 'billing' end as billing,
               case when jsonb_typeof(p.settings -> 'finality') = 'object' then p.settings -> 'finality' end as finality
        from oauth_tokens t
        join oauth_clients c on c.id = t.client_pk
        join platforms p on p.id = c.platform_id
        where t.token_hash = ${tokenHash}`;
      if (!row) return undefined;
      return {
        tokenId: row.token_id,
        tokenScopes: row.token_scopes,
        expiresAtMs: Number(row.expires_ms),
        revoked: row.revoked,
        clientPk: row.client_pk,
        clientId: row.client_id,
        clientScopes: row.client_scopes,
        clientUsable: row.client_usable,
        platformScopes: row.platform_scopes,
        platformId: row.platform_id,
        platformName: row.name,
        workspaceId: row.workspace_id,
        sandbox: row.sandbox,
        platformActive: row.is_active,
        billing: row.billing,
        finality: row.finality,
      };
    },
    pruneInvalidations: async () => {
      await sql`delete from credential_invalidations where created_at < now() - interval '1 day'`;
    },

    pollInvalidations: async (sinceXmin) => {
      // One statement, one snapshot: every row invisible now belongs to a transaction whose xid is
      // at least this snapshot's xmin, so the next poll (from this xmin) will see it once committed.
      const rows = await sql<{ xmin: string; seq: string | null; kind: CredentialInvalidationKind | null; ref: string | null }[]>`
        with s as (select pg_snapshot_xmin(pg_current_snapshot()) as xmin)
        select s.xmin::text as xmin, i.seq, i.kind, i.ref
        from s left join credential_invalidations i on ${sinceXmin ?? null}::xid8 is not null and i.xid >= ${sinceXmin ?? null}::xid8
        order by i.seq`;
      const xmin = rows[0]?.xmin ?? sinceXmin ?? '0';
      return {
        xmin,
        rows: rows
          .filter((r) => r.seq !== null)
          .map((r) => ({ seq: Number(r.seq), kind: r.kind as CredentialInvalidationKind, ref: r.ref as string })),
      };
    },
  };
}
