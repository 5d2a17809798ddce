import {
  AppError,
  type CreateWorkspaceOAuthClientBody,
  fromPaymentsScope,
  notFound,
  type OAuthClient,
  type OAuthClientWithSecret,
  PAYMENTS_COMMANDS,
  type Scope,
  scopesBeyondRole,
  toPaymentsScope,
  toWorkspaceScope,
  type UpdateWorkspaceOAuthClientBody,
  type WorkspaceOAuthClient,
  type WorkspaceOAuthClientWithSecret,
} from '@holdfast/contracts';
import { type Bus, sendCommand } from '@holdfast/messaging';
import type { Store } from '../../db/store.js';
import { type Actor, assertWorkspaceAccess, type Caller, requireActor } from '../access/index.js';
import { AUDIT, type AuditService, diffChanges } from '../audit/index.js';
import { assertIssuesCredentials, type WorkspacesRepository } from '../workspaces/index.js';

/** Payments scope -> the Workspace API's `resource:action` (scopes not offered to workspaces keep their plain reversal). */
function workspaceScope(scope: Scope): string {
  return fromPaymentsScope(scope) ?? toWorkspaceScope(scope);
}

export function toWorkspaceClient(client: OAuthClient): WorkspaceOAuthClient {
  return {
    id: client.id,
    clientId: client.clientId,
    name: client.name,
    description: client.description,
    platformId: client.platformId,
    workspaceId: client.workspaceId,
    scopes: client.scopes.map(workspaceScope),
    grantTypes: client.grantTypes,
    redirectUris: client.redirectUris,
    isActive: client.isActive,
    createdAt: client.createdAt,
    updatedAt: client.updatedAt,
  };
}

/** The route's `resource:action` scopes (already checked against the offered list) -> payments scopes. */
function paymentsScopes(scopes: readonly string[]): Scope[] {
  return scopes.map((s) => toPaymentsScope(s) as Scope);
}

const audited = (c: WorkspaceOAuthClient) => ({
  name: c.name,
  description: c.description,
  scopes: c.scopes,
  grantTypes: c.grantTypes,
  redirectUris: c.redirectUris,
  isActive: c.isActive,
  platformId: c.platformId,
});

/**
 * A workspace's OAuth clients (spec "Workspace API: OAuth clients"): every operation is one
 * command to payments, which owns clients and tokens; a client of another workspace answers 404.
 * Members of the workspace and SUPER_ADMINs. Changes are audited once payments has answered.
 */
export function createOAuthClientsService(deps: { store: Store<{ workspaces: WorkspacesRepository }>; audit: AuditService; bus: Bus }) {
  const { store, audit, bus } = deps;

  async function accessible(actor: Actor, workspaceId: string): Promise<void> {
    assertWorkspaceAccess(actor, workspaceId);
    if (!(await store.repos.workspaces.findById(workspaceId))) throw notFound('Workspace');
  }

  const opts = (caller: Caller) => ({ requestId: caller.requestId });

  /**
   * A credential a member mints can do no more than the member (docs/api/scopes.md#who-may-grant-a-scope):
   * a CLIENT may neither grant a scope beyond its role nor change a client that holds one.
   */
  function assertMayGrant(actor: Actor, scopes: readonly string[], what: string): void {
    const beyond = scopesBeyondRole(actor.role, scopes);
    if (beyond.length > 0) {
      throw new AppError('FORBIDDEN', `A ${actor.role} may not ${what} an OAuth client with ${beyond.join(', ')}: ask an ADMIN`, {
        scopes: beyond,
      });
    }
  }

  /** The grant check on an existing client: its scopes must be ones the member may grant. */
  async function assertMayTouch(caller: Caller, workspaceId: string, clientId: string, what: string): Promise<void> {
    const client = await sendCommand(bus, PAYMENTS_COMMANDS.getOAuthClient, { workspaceId, clientId }, opts(caller));
    assertMayGrant(requireActor(caller), toWorkspaceClient(client).scopes, what);
  }

  return {
    list: async (caller: Caller, workspaceId: string): Promise<{ clients: WorkspaceOAuthClient[] }> => {
      await accessible(requireActor(caller), workspaceId);
      const { clients } = await sendCommand(bus, PAYMENTS_COMMANDS.listOAuthClients, { workspaceId }, opts(caller));
      return { clients: clients.map(toWorkspaceClient) };
    },

    /** Only for an `active` workspace (403 otherwise): a client mints tokens that move money. */
    create: async (caller: Caller, workspaceId: string, body: CreateWorkspaceOAuthClientBody): Promise<WorkspaceOAuthClientWithSecret> => {
      const actor = requireActor(caller);
      assertWorkspaceAccess(actor, workspaceId);
      const workspace = await store.repos.workspaces.findById(workspaceId);
      if (!workspace) throw notFound('Workspace');
      assertIssuesCredentials(workspace);
      assertMayGrant(actor, body.scopes, 'create');
      const { scopes, ...rest } = body;
      const created: OAuthClientWithSecret = await sendCommand(
        bus,
        PAYMENTS_COMMANDS.createOAuthClient,
        { workspaceId, ...rest, scopes: paymentsScopes(scopes) },
        opts(caller),
      );
      const client = toWorkspaceClient(created);
      await audit.recordRemote(caller, AUDIT.oauthClientCreate, {
        resourceId: client.clientId,
        workspaceId,
        details: `Created OAuth client ${client.name} (${client.clientId})`,
        changes: diffChanges({}, audited(client)),
      });
      return { ...client, clientSecret: created.clientSecret, warning: created.warning };
    },

    get: async (caller: Caller, workspaceId: string, clientId: string): Promise<WorkspaceOAuthClient> => {
      await accessible(requireActor(caller), workspaceId);
      return toWorkspaceClient(await sendCommand(bus, PAYMENTS_COMMANDS.getOAuthClient, { workspaceId, clientId }, opts(caller)));
    },

    update: async (caller: Caller, workspaceId: string, clientId: string, body: UpdateWorkspaceOAuthClientBody) => {
      const actor = requireActor(caller);
      await accessible(actor, workspaceId);
      if (body.scopes) assertMayGrant(actor, body.scopes, 'grant');
      const before = toWorkspaceClient(await sendCommand(bus, PAYMENTS_COMMANDS.getOAuthClient, { workspaceId, clientId }, opts(caller)));
      assertMayGrant(actor, before.scopes, 'change');
      const { scopes, ...rest } = body;
      const after = toWorkspaceClient(
        await sendCommand(
          bus,
          PAYMENTS_COMMANDS.updateOAuthClient,
          { workspaceId, clientId, ...rest, ...(scopes ? { scopes: paymentsScopes(scopes) } : {}) },
          opts(caller),
        ),
      );
      const changes = diffChanges(audited(before), audited(after));
      await audit.recordRemote(caller, AUDIT.oauthClientUpdate, {
        resourceId: after.clientId,
        workspaceId,
        details: `Updated OAuth client ${after.clientId}: ${Object.keys(changes).join(', ') || 'no change'}`,
        changes,
      });
      return after;
    },

    /** Deletes the client and revokes all its tokens. */
    remove: async (caller: Caller, workspaceId: string, clientId: string): Promise<void> => {
      const actor = requireActor(caller);
      await accessible(actor, workspaceId);
      const before = toWorkspaceClient(await sendCommand(bus, PAYMENTS_COMMANDS.getOAuthClient, { workspaceId, clientId }, opts(caller)));
      // A CLIENT deleted an ADMIN's money-moving client (issue 28 item 6): only who may grant its scopes may delete it.
      assertMayGrant(actor, before.scopes, 'delete');
      const { revokedTokens } = await sendCommand(bus, PAYMENTS_COMMANDS.deleteOAuthClient, { workspaceId, clientId }, opts(caller));
      await audit.recordRemote(caller, AUDIT.oauthClientDelete, {
        resourceId: before.clientId,
        workspaceId,
        details: `Deleted OAuth client ${before.name} (${before.clientId}); ${revokedTokens} token(s) revoked`,
        changes: diffChanges(audited(before), {}),
        metadata: { revokedTokens },
      });
    },

    revokeTokens: async (caller: Caller, workspaceId: string, clientId: string): Promise<{ count: number }> => {
      await accessible(requireActor(caller), workspaceId);
      await assertMayTouch(caller, workspaceId, clientId, 'revoke the tokens of');
      const { count } = await sendCommand(bus, PAYMENTS_COMMANDS.revokeOAuthClientTokens, { workspaceId, clientId }, opts(caller));
      await audit.recordRemote(caller, AUDIT.oauthClientRevokeTokens, {
        resourceId: clientId,
        workspaceId,
        details: `Revoked ${count} token(s) of OAuth client ${clientId}`,
        metadata: { revokedTokens: count },
      });
      return { count };
    },

    stats: async (caller: Caller, workspaceId: string, clientId: string) => {
      await accessible(requireActor(caller), workspaceId);
      await assertMayTouch(caller, workspaceId, clientId, 'read the usage of');
      return sendCommand(bus, PAYMENTS_COMMANDS.oauthClientStats, { workspaceId, clientId }, opts(caller));
    },
  };
}

export type OAuthClientsService = ReturnType<typeof createOAuthClientsService>;
