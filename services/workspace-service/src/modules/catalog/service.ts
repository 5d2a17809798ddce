import { type EventTypeInfo, eventTypeCatalog, notFound, type OAuthScopeInfo, WORKSPACE_OAUTH_SCOPES } from '@holdfast/contracts';
import { type Actor, assertWorkspaceAccess } from '../access/index.js';

/** What workspace integrations may use: OAuth client scopes and webhook event types. */
export function createCatalogService(deps: { workspaceExists: (id: string) => Promise<boolean> }) {
  async function accessible(actor: Actor, workspaceId: string): Promise<void> {
    assertWorkspaceAccess(actor, workspaceId);
    if (!(await deps.workspaceExists(workspaceId))) throw notFound('Workspace');
  }
  return {
    oauthScopes: async (actor: Actor, workspaceId: string): Promise<OAuthScopeInfo[]> => {
      await accessible(actor, workspaceId);
      return WORKSPACE_OAUTH_SCOPES.map((s) => ({
        scope: s.scope,
        paymentsScope: s.paymentsScope,
        apiVersions: [...s.apiVersions],
        grantableBy: s.grantableBy,
        description: s.description,
      }));
    },
    eventTypes: async (actor: Actor, workspaceId: string): Promise<EventTypeInfo[]> => {
      await accessible(actor, workspaceId);
      return eventTypeCatalog();
    },
  };
}

export type CatalogService = ReturnType<typeof createCatalogService>;
