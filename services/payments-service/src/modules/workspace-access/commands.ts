import { PAYMENTS_COMMANDS } from '@holdfast/contracts';
import { type Bus, serveCommand } from '@holdfast/messaging';
import type { OAuthService } from '../oauth/index.js';
import type { WorkspaceAccessService } from './service.js';

/** Serves the Workspace API's commands (contracts: PAYMENTS_COMMANDS); returns a stopper. */
export function serveWorkspaceAccessCommands(bus: Bus, service: string, access: WorkspaceAccessService, oauth: OAuthService): () => void {
  const c = PAYMENTS_COMMANDS;
  const subscriptions = [
    serveCommand(bus, c.issueSandboxCredentials, service, (r) => access.issueSandboxCredentials(r)),
    serveCommand(bus, c.listPlatforms, service, (r) => access.listPlatforms(r)),
    serveCommand(bus, c.deactivatePlatform, service, (r) => access.deactivatePlatform(r)),
    serveCommand(bus, c.deactivateWorkspacePlatforms, service, (r) => access.deactivateWorkspacePlatforms(r)),
    serveCommand(bus, c.listOAuthClients, service, async (r) => ({ clients: await oauth.listForWorkspace(r.workspaceId) })),
    serveCommand(bus, c.createOAuthClient, service, (r) => access.createOAuthClient(r)),
    serveCommand(bus, c.getOAuthClient, service, (r) => oauth.getForWorkspace(r.workspaceId, r.clientId)),
    serveCommand(bus, c.updateOAuthClient, service, ({ workspaceId, clientId, ...changes }) =>
      oauth.updateForWorkspace(workspaceId, clientId, changes),
    ),
    serveCommand(bus, c.deleteOAuthClient, service, (r) => oauth.deleteForWorkspace(r.workspaceId, r.clientId)),
    serveCommand(bus, c.revokeOAuthClientTokens, service, (r) => oauth.revokeTokensForWorkspace(r.workspaceId, r.clientId)),
    serveCommand(bus, c.oauthClientStats, service, (r) => oauth.statsForWorkspace(r.workspaceId, r.clientId)),
  ];
  return () => {
    for (const s of subscriptions) s.unsubscribe();
  };
}
