import {
  ACCESS_TOKEN_LIFETIME_SECONDS,
  AppError,
  type CreateOAuthClientBody,
  type GrantType,
  type IntrospectionResponse,
  notFound,
  type OAuthClient,
  type OAuthClientWithSecret,
  OPERATOR_ONLY_SCOPES,
  SCOPES,
  type Scope,
  SHOWN_ONCE_WARNING,
  type TokenResponse,
  withinPlatformScopes,
} from '@holdfast/contracts';
import type { Queryable } from '@holdfast/db';
import {
  credentialHash,
  type InvalidationFeed,
  looksLikeAccessToken,
  looksLikeClientId,
  newAccessToken,
  newClientId,
  newClientSecret,
  type Principal,
  secretMatches,
} from '../auth/index.js';
import type { PlatformsRepository } from '../platforms/index.js';
import { OAuthError } from './errors.js';
import type { ClientChanges, ClientRef, ClientRow, OAuthRepository } from './repository.js';

/** Client credentials as presented: HTTP Basic (client_secret_basic) and/or body (client_secret_post, JSON). */
export interface PresentedClient {
  basic?: { clientId: string; clientSecret: string };
  body?: { clientId?: string; clientSecret?: string };
}

export function toOAuthClient(row: ClientRow): OAuthClient {
  const { secretHash: _secret, platformActive: _active, platformScopes: _platformScopes, ...client } = row;
  return client;
}

export interface OAuthService {
  /** POST /api/v1/oauth/clients: a client for `platformId` (default: the caller's platform). */
  createClient: (principal: Principal, body: CreateOAuthClientBody) => Promise<OAuthClientWithSecret>;
  /** Inside the caller's transaction: a new client and its secret (sandbox credentials, workspace). */
  createClientInTransaction: (
    tx: Queryable,
    input: {
      platformId: string;
      workspaceId: string | null;
      name: string;
      description?: string | null;
      scopes: readonly Scope[];
      grantTypes?: readonly GrantType[];
      redirectUris?: readonly string[];
    },
  ) => Promise<OAuthClientWithSecret>;
  revokeAllTokens: (principal: Principal, clientRef: string) => Promise<{ clientId: string; count: number }>;
  issueToken: (input: { grantType: string; scope?: string; client: PresentedClient }) => Promise<TokenResponse>;
  revoke: (input: { token: string; client: PresentedClient }) => Promise<void>;
  introspect: (input: { token: string; client: PresentedClient; issuer: string }) => Promise<IntrospectionResponse>;
  // Workspace API (commands): every call names its workspace; another workspace's client is not found.
  listForWorkspace: (workspaceId: string) => Promise<OAuthClient[]>;
  getForWorkspace: (workspaceId: string, clientRef: string) => Promise<OAuthClient>;
  updateForWorkspace: (workspaceId: string, clientRef: string, changes: ClientChanges) => Promise<OAuthClient>;
  deleteForWorkspace: (workspaceId: string, clientRef: string) => Promise<{ clientId: string; revokedTokens: number }>;
  revokeTokensForWorkspace: (workspaceId: string, clientRef: string) => Promise<{ count: number }>;
  statsForWorkspace: (
    workspaceId: string,
    clientRef: string,
  ) => Promise<{ totalTokens: number; activeTokens: number; revokedTokens: number }>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `hf_client_…` or a uuid -> the lookup; anything else finds nothing. */
export function clientRefOf(text: string, workspaceId?: string): ClientRef | undefined {
  if (UUID.test(text)) return { id: text, workspaceId };
  if (looksLikeClientId(text)) return { clientId: text, workspaceId };
  return undefined;
}

/** Operator-only scopes never go to a workspace's client. */
export function checkClientScopes(workspaceId: string | null, scopes: readonly Scope[]): void {
  if (workspaceId === null) return;
  const refused = scopes.filter((s) => OPERATOR_ONLY_SCOPES.includes(s));
  if (refused.length > 0) {
    throw new AppError('FORBIDDEN', `${refused.join(', ')} cannot be given to a workspace's OAuth client`, { refused });
  }
}

/**
 * A client holds no scope its platform does not cover (PLATFORM_SCOPES_NEEDED): such a scope would
 * mint nothing, so it is refused where it is set rather than dropped silently at the token.
 */
export function checkWithinPlatform(platformScopes: readonly Scope[], scopes: readonly Scope[]): void {
  const covered = new Set(withinPlatformScopes(scopes, platformScopes));
  const refused = scopes.filter((s) => !covered.has(s));
  if (refused.length > 0) {
    throw new AppError('FORBIDDEN', `${refused.join(', ')} go beyond the platform's scopes; widen the platform first`, {
      reason: 'beyond_platform_scopes',
      refused,
      platformScopes: [...platformScopes],
    });
  }
}

export function createOAuthService(deps: {
  repository: OAuthRepository;
  platforms: PlatformsRepository;
  feed: Pick<InvalidationFeed, 'announce'>;
}): OAuthService {
  const { repository, feed } = deps;

  async function createClientInTransaction(
    tx: Queryable,
    input: Parameters<OAuthService['createClientInTransaction']>[1],
  ): Promise<OAuthClientWithSecret> {
    const clientSecret = newClientSecret();
    const row = await repository.insertClient(tx, {
      clientId: newClientId(),
      secretHash: credentialHash(clientSecret),
      name: input.name,
      description: input.description ?? null,
      platformId: input.platformId,
      workspaceId: input.workspaceId,
      scopes: input.scopes,
      grantTypes: input.grantTypes ?? ['client_credentials'],
      redirectUris: input.redirectUris ?? [],
    });
    return { ...toOAuthClient(row), clientSecret, warning: SHOWN_ONCE_WARNING };
  }

  /** Authenticates the client; every failure is the same invalid_client (no oracle). */
  async function authenticate(presented: PresentedClient): Promise<ClientRow> {
    const basicAuth = presented.basic !== undefined;
    if (presented.basic && (presented.body?.clientId !== undefined || presented.body?.clientSecret !== undefined)) {
      if (presented.body?.clientSecret !== undefined || presented.body?.clientId !== presented.basic.clientId) {
        throw new OAuthError(
          'invalid_request',
          'Use one client authentication method: HTTP Basic or client_id and client_secret in the body',
        );
      }
    }
    const clientId = presented.basic?.clientId ?? presented.body?.clientId;
    const clientSecret = presented.basic?.clientSecret ?? presented.body?.clientSecret;
    if (!clientId || clientSecret === undefined) {
      throw new OAuthError('invalid_client', 'Client authentication required: HTTP Basic, or client_id and client_secret', { basicAuth });
    }
    const failed = new OAuthError('invalid_client', 'Client authentication failed', { basicAuth });
    if (!looksLikeClientId(clientId)) throw failed;
    const client = await repository.findClient({ clientId });
    if (!client || !secretMatches(clientSecret, client.secretHash) || !client.isActive || !client.platformActive) throw failed;
    return client;
  }

  async function workspaceClient(workspaceId: string, clientRef: string, tx?: Queryable): Promise<ClientRow> {
    const ref = clientRefOf(clientRef, workspaceId);
    const row = ref ? await repository.findClient(ref, { tx, forUpdate: tx !== undefined }) : undefined;
    if (!row) throw notFound('OAuth client');
    return row;
  }

  async function changeClient(workspaceId: string, clientRef: string, changes: ClientChanges): Promise<OAuthClient> {
    if (changes.scopes) checkClientScopes(workspaceId, changes.scopes);
    const row = await repository.transaction(async (tx) => {
      const current = await workspaceClient(workspaceId, clientRef, tx);
      if (changes.scopes) checkWithinPlatform(current.platformScopes, changes.scopes);
      const updated = await repository.updateClient(tx, current.id, changes);
      if (changes.isActive === false && current.isActive) await repository.revokeClientTokens(tx, current.id);
      return updated;
    });
    feed.announce([{ kind: 'client', ref: row.id }]);
    return toOAuthClient(row);
  }

  return {
    createClient: async (principal, body) => {
      const platformId = body.platformId ?? principal.platformId;
      const platform = await deps.platforms.get(platformId);
      if (!platform) throw notFound('Platform');
      if (!platform.isActive) throw new AppError('CONFLICT', 'The platform is deactivated; reactivate it before adding OAuth clients');
      checkClientScopes(platform.workspaceId, body.scopes);
      checkWithinPlatform(platform.scopes, body.scopes);
      return repository.transaction((tx) =>
        createClientInTransaction(tx, {
          platformId,
          workspaceId: platform.workspaceId,
          name: body.name,
          description: body.description,
          scopes: body.scopes,
          grantTypes: body.grantTypes,
          redirectUris: body.redirectUris,
        }),
      );
    },

    createClientInTransaction,

    revokeAllTokens: async (_principal, clientRef) => {
      const ref = clientRefOf(clientRef);
      const { client, count } = await repository.transaction(async (tx) => {
        const found = ref ? await repository.findClient(ref, { tx, forUpdate: true }) : undefined;
        if (!found) throw notFound('OAuth client');
        return { client: found, count: await repository.revokeClientTokens(tx, found.id) };
      });
      feed.announce([{ kind: 'client', ref: client.id }]);
      return { clientId: client.clientId, count };
    },

    issueToken: async ({ grantType, scope, client: presented }) => {
      if (grantType !== 'client_credentials') {
        throw new OAuthError('unsupported_grant_type', `grant_type ${grantType} is not supported; use client_credentials`, {
          field: 'grant_type',
        });
      }
      const client = await authenticate(presented);
      if (!client.grantTypes.includes('client_credentials')) {
        throw new OAuthError('unauthorized_client', 'This client may not use the client_credentials grant');
      }
      const requested = scope?.split(' ').filter((s) => s !== '') ?? [];
      // A token holds only what its client holds AND its platform still covers: a platform cut back
      // after its clients were made mints no wider token (docs/api/scopes.md).
      const usable = withinPlatformScopes(client.scopes, client.platformScopes);
      let granted: Scope[];
      if (requested.length === 0) {
        granted = usable;
        if (granted.length === 0) {
          throw new OAuthError('invalid_scope', "None of this client's scopes is covered by its platform's scopes any more", {
            field: 'scope',
          });
        }
      } else {
        const unknown = requested.filter((s) => !(SCOPES as readonly string[]).includes(s));
        const notHeld = requested.filter((s) => !unknown.includes(s) && !client.scopes.includes(s as Scope));
        const beyondPlatform = requested.filter((s) => !unknown.includes(s) && !notHeld.includes(s) && !usable.includes(s as Scope));
        if (unknown.length > 0 || notHeld.length > 0 || beyondPlatform.length > 0) {
          const parts = [
            unknown.length > 0 ? `unknown scope ${unknown.join(', ')}` : '',
            notHeld.length > 0 ? `scope ${notHeld.join(', ')} not granted to this client` : '',
            beyondPlatform.length > 0 ? `scope ${beyondPlatform.join(', ')} beyond the platform's scopes` : '',
          ].filter(Boolean);
          throw new OAuthError('invalid_scope', `The requested scope is invalid: ${parts.join('; ')}`, { field: 'scope' });
        }
        granted = [...new Set(requested)] as Scope[];
      }
      const accessToken = newAccessToken();
      await repository.insertToken({
        tokenHash: credentialHash(accessToken),
        clientPk: client.id,
        platformId: client.platformId,
        scopes: granted,
        lifetimeSeconds: ACCESS_TOKEN_LIFETIME_SECONDS,
      });
      return { access_token: accessToken, token_type: 'Bearer', expires_in: ACCESS_TOKEN_LIFETIME_SECONDS, scope: granted.join(' ') };
    },

    revoke: async ({ token, client: presented }) => {
      const client = await authenticate(presented);
      if (!looksLikeAccessToken(token)) return;
      const found = await repository.findToken(credentialHash(token));
      // RFC 7009: an unknown token, or one issued to another client, answers 200 and changes nothing.
      if (!found || found.clientPk !== client.id || found.revoked) return;
      if (await repository.revokeToken(found.id)) feed.announce([{ kind: 'token', ref: found.id }]);
    },

    introspect: async ({ token, client: presented, issuer }) => {
      const client = await authenticate(presented);
      if (!looksLikeAccessToken(token)) return { active: false };
      const found = await repository.findToken(credentialHash(token));
      if (!found || found.revoked || found.expiresAtMs <= Date.now() || found.platformId !== client.platformId) return { active: false };
      const owner = await repository.findClient({ id: found.clientPk });
      if (!owner?.isActive || !owner.platformActive) return { active: false };
      const held = new Set(withinPlatformScopes(owner.scopes, owner.platformScopes));
      return {
        active: true,
        scope: found.scopes.filter((s) => held.has(s)).join(' '),
        client_id: owner.clientId,
        token_type: 'Bearer',
        exp: Math.floor(found.expiresAtMs / 1000),
        iat: Math.floor(found.issuedAtMs / 1000),
        sub: found.platformId,
        iss: issuer,
        platform_id: found.platformId,
        workspace_id: owner.workspaceId,
      };
    },

    listForWorkspace: async (workspaceId) => (await repository.listClients({ workspaceId })).map(toOAuthClient),

    getForWorkspace: async (workspaceId, clientRef) => toOAuthClient(await workspaceClient(workspaceId, clientRef)),

    updateForWorkspace: changeClient,

    deleteForWorkspace: async (workspaceId, clientRef) => {
      const result = await repository.transaction(async (tx) => {
        const current = await workspaceClient(workspaceId, clientRef, tx);
        const revokedTokens = await repository.revokeClientTokens(tx, current.id);
        await repository.markDeleted(tx, current.id);
        return { pk: current.id, clientId: current.clientId, revokedTokens };
      });
      feed.announce([{ kind: 'client', ref: result.pk }]);
      return { clientId: result.clientId, revokedTokens: result.revokedTokens };
    },

    revokeTokensForWorkspace: async (workspaceId, clientRef) => {
      const result = await repository.transaction(async (tx) => {
        const current = await workspaceClient(workspaceId, clientRef, tx);
        return { pk: current.id, count: await repository.revokeClientTokens(tx, current.id) };
      });
      feed.announce([{ kind: 'client', ref: result.pk }]);
      return { count: result.count };
    },

    statsForWorkspace: async (workspaceId, clientRef) => repository.stats((await workspaceClient(workspaceId, clientRef)).id),
  };
}
