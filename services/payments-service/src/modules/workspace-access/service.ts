import {
  AppError,
  type CommandReply,
  type CommandRequest,
  notFound,
  type PAYMENTS_COMMANDS,
  SANDBOX_CLIENT_SCOPES,
  SANDBOX_KEY_SCOPES,
  type SandboxCredential,
  SHOWN_ONCE_WARNING,
  type WorkspacePlatform,
} from '@holdfast/contracts';
import type { InvalidationFeed } from '../auth/index.js';
import { checkClientScopes, checkWithinPlatform, type OAuthRepository, type OAuthService } from '../oauth/index.js';
import type { PlatformRow, PlatformsRepository, PlatformsService } from '../platforms/index.js';

type Cmd = typeof PAYMENTS_COMMANDS;

/**
 * What the Workspace API asks of payments over NATS: sandbox credentials, a workspace's platforms
 * and OAuth clients. Every operation names its workspace and never reaches another's.
 */
export interface WorkspaceAccessService {
  issueSandboxCredentials: (r: CommandRequest<Cmd['issueSandboxCredentials']>) => Promise<SandboxCredential>;
  listPlatforms: (r: CommandRequest<Cmd['listPlatforms']>) => Promise<CommandReply<Cmd['listPlatforms']>>;
  deactivatePlatform: (r: CommandRequest<Cmd['deactivatePlatform']>) => Promise<CommandReply<Cmd['deactivatePlatform']>>;
  deactivateWorkspacePlatforms: (
    r: CommandRequest<Cmd['deactivateWorkspacePlatforms']>,
  ) => Promise<CommandReply<Cmd['deactivateWorkspacePlatforms']>>;
  createOAuthClient: (r: CommandRequest<Cmd['createOAuthClient']>) => Promise<CommandReply<Cmd['createOAuthClient']>>;
}

function sandboxName(now = new Date()): string {
  return `Sandbox ${now.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function createWorkspaceAccessService(deps: {
  platformsRepository: PlatformsRepository;
  platforms: PlatformsService;
  oauthRepository: OAuthRepository;
  oauth: OAuthService;
  feed: Pick<InvalidationFeed, 'announce'>;
}): WorkspaceAccessService {
  const { platformsRepository, platforms, oauthRepository, oauth, feed } = deps;

  function toWorkspacePlatform(row: PlatformRow, clientIds: string[]): WorkspacePlatform {
    return {
      platformId: row.id,
      name: row.name,
      workspaceId: row.workspaceId as string,
      sandbox: row.sandbox,
      isActive: row.isActive,
      scopes: row.scopes,
      apiKeyHint: row.apiKeyHint,
      oauthClientIds: clientIds,
      createdAt: row.createdAt,
      deactivatedAt: row.deactivatedAt,
    };
  }

  return {
    issueSandboxCredentials: async ({ workspaceId, name }) => {
      const platformName = name ?? sandboxName();
      const { platform, apiKey, client } = await platformsRepository.transaction(async (tx) => {
        const made = await platforms.createWithKey(tx, {
          name: platformName,
          workspaceId,
          sandbox: true,
          webhookUrl: null,
          settings: {},
          scopes: SANDBOX_KEY_SCOPES,
        });
        const created = await oauth.createClientInTransaction(tx, {
          platformId: made.platform.id,
          workspaceId,
          name: `${platformName} client`,
          description: 'Sandbox OAuth client (v2)',
          scopes: SANDBOX_CLIENT_SCOPES,
        });
        return { ...made, client: created };
      });
      return {
        platformId: platform.id,
        name: platform.name,
        apiKey,
        oauthClient: { clientId: client.clientId, clientSecret: client.clientSecret, scopes: client.scopes },
        scopes: platform.scopes,
        createdAt: platform.createdAt,
        warning: SHOWN_ONCE_WARNING,
      };
    },

    listPlatforms: async ({ workspaceId, includeInactive }) => {
      const [rows, clients] = await Promise.all([
        platformsRepository.list({ workspaceId, includeInactive: includeInactive ?? false }),
        oauthRepository.listClients({ workspaceId }),
      ]);
      return {
        platforms: rows.map((row) =>
          toWorkspacePlatform(
            row,
            clients.filter((c) => c.platformId === row.id).map((c) => c.clientId),
          ),
        ),
      };
    },

    deactivatePlatform: async ({ workspaceId, platformId }) => {
      const { revokedTokens } = await platformsRepository.transaction(async (tx) => {
        const row = await platformsRepository.get(platformId, { tx, forUpdate: true });
        if (!row || row.workspaceId !== workspaceId) throw notFound('Platform');
        return platforms.deactivateInTransaction(tx, platformId);
      });
      feed.announce([{ kind: 'platform', ref: platformId }]);
      return { platformId, revokedTokens };
    },

    deactivateWorkspacePlatforms: async ({ workspaceId }) => {
      const active = await platformsRepository.list({ workspaceId, includeInactive: false });
      const platformIds = active.map((p) => p.id);
      const revokedTokens = await platformsRepository.transaction(async (tx) => {
        let total = 0;
        for (const id of platformIds) total += (await platforms.deactivateInTransaction(tx, id)).revokedTokens;
        return total;
      });
      feed.announce(platformIds.map((ref) => ({ kind: 'platform' as const, ref })));
      return { platformIds, revokedTokens };
    },

    createOAuthClient: async ({ workspaceId, platformId, name, scopes, description, grantTypes, redirectUris }) => {
      checkClientScopes(workspaceId, scopes);
      const candidates = await platformsRepository.list({ workspaceId, includeInactive: false });
      const platform = platformId ? candidates.find((p) => p.id === platformId) : candidates.find((p) => p.sandbox);
      if (!platform) {
        if (platformId) throw notFound('Platform');
        throw new AppError(
          'CONFLICT',
          'The workspace has no active sandbox platform: issue sandbox credentials first, or name a platformId',
          {
            workspaceId,
          },
        );
      }
      checkWithinPlatform(platform.scopes, scopes);
      return oauthRepository.transaction((tx) =>
        oauth.createClientInTransaction(tx, { platformId: platform.id, workspaceId, name, description, scopes, grantTypes, redirectUris }),
      );
    },
  };
}
