import { workspaceEndpoints as api } from '@holdfast/contracts';
import { envelope, type HttpApp, serveEndpoint } from '@holdfast/http-kit';
import { ADMIN_ROLES, requireActor } from '../../access/index.js';
import type { WalletApi } from '../api.js';
import { WALLET_AUDIT } from '../common/audit.js';

/** `/wallet-provider-configs`: custody vendor credentials per workspace (ADMIN of the workspace or SUPER_ADMIN). */
export function walletProviderConfigRoutes(wallets: WalletApi) {
  return async (app: HttpApp) => {
    serveEndpoint(app, api.listWalletProviderConfigs, { config: { tier: 'standard', roles: ADMIN_ROLES } }, async (request) =>
      wallets.listProviderConfigs(requireActor(request.caller), request.query),
    );

    serveEndpoint(
      app,
      api.createWalletProviderConfig,
      { config: { tier: 'admin', roles: ADMIN_ROLES, audit: WALLET_AUDIT.providerConfigCreate } },
      async (request, reply) => reply.code(201).send(envelope(request, await wallets.createProviderConfig(request.caller, request.body))),
    );

    serveEndpoint(app, api.walletProviderConfigStatus, { config: { tier: 'high', access: 'internal' } }, async (request) =>
      envelope(request, await wallets.providerConfigStatus(request.query)),
    );

    serveEndpoint(app, api.checkDuplicateWalletProviderConfig, { config: { tier: 'standard', roles: ADMIN_ROLES } }, async (request) =>
      envelope(request, await wallets.checkDuplicateProviderConfig(requireActor(request.caller), request.query)),
    );

    serveEndpoint(app, api.getWalletProviderConfig, { config: { tier: 'standard', roles: ADMIN_ROLES } }, async (request) =>
      envelope(request, await wallets.getProviderConfig(requireActor(request.caller), request.params.id)),
    );

    serveEndpoint(
      app,
      api.updateWalletProviderConfig,
      { config: { tier: 'admin', roles: ADMIN_ROLES, audit: WALLET_AUDIT.providerConfigUpdate } },
      async (request) => envelope(request, await wallets.updateProviderConfig(request.caller, request.params.id, request.body)),
    );

    serveEndpoint(
      app,
      api.deleteWalletProviderConfig,
      { config: { tier: 'admin', roles: ADMIN_ROLES, audit: WALLET_AUDIT.providerConfigDelete } },
      async (request, reply) => {
        await wallets.deleteProviderConfig(request.caller, request.params.id);
        return reply.code(204).send(null);
      },
    );

    serveEndpoint(app, api.testWalletProviderConnection, { config: { tier: 'admin', roles: ADMIN_ROLES } }, async (request) =>
      envelope(request, await wallets.testProviderConnection(requireActor(request.caller), request.params.id)),
    );

    serveEndpoint(
      app,
      api.setDefaultWalletProviderConfig,
      { config: { tier: 'admin', roles: ADMIN_ROLES, audit: WALLET_AUDIT.providerConfigSetDefault } },
      async (request) => envelope(request, await wallets.setDefaultProviderConfig(request.caller, request.params.id)),
    );
  };
}
