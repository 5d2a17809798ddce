import {
  CheckDuplicateQuery,
  ConnectionTestResult,
  CreateWalletProviderConfigBody,
  DuplicateCheckResult,
  ListWalletProviderConfigsQuery,
  UpdateWalletProviderConfigBody,
  WalletProviderConfig,
  WalletProviderConfigList,
  WalletProviderConfigParams,
  WalletProviderStatus,
  WalletProviderStatusQuery,
} from '@holdfast/contracts';
import { envelope, errorResponses, type HttpApp } from '@holdfast/http-kit';
import { BEARER, INTERNAL_KEY, NoContent, ok } from '../../../http/schemas.js';
import { requireActor } from '../../access/caller.js';
import { ADMIN_ROLES } from '../../access/policy.js';
import type { WalletApi } from '../api.js';
import { WALLET_AUDIT } from '../common/audit.js';

const TAG = 'wallet provider configs';
const SECRECY =
  '`config` (the vendor credentials, one shape per providerType: docs/wallets.md) is accepted on write, sealed with AES-256-GCM and never ' +
  'returned, logged or audited (audit entries show `[redacted]`).';

/** `/wallet-provider-configs`: custody vendor credentials per workspace (ADMIN of the workspace or SUPER_ADMIN). */
export function walletProviderConfigRoutes(api: WalletApi) {
  return async (app: HttpApp) => {
    app.get(
      '/wallet-provider-configs',
      {
        config: { tier: 'standard', roles: ADMIN_ROLES },
        schema: {
          tags: [TAG],
          summary: 'List wallet provider configs',
          description:
            "An ADMIN sees its workspace's configs and the global ones; a SUPER_ADMIN every config. Newest first. The answer is the spec's " +
            "bare page `{data, total, page, limit, totalPages}`, not the envelope. A `workspaceId` outside the caller's workspaces is 403.",
          operationId: 'listWalletProviderConfigs',
          security: BEARER,
          querystring: ListWalletProviderConfigsQuery,
          response: { 200: WalletProviderConfigList, ...errorResponses(401, 403) },
        },
      },
      async (request) => api.listProviderConfigs(requireActor(request.caller), request.query),
    );

    app.post(
      '/wallet-provider-configs',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES, audit: WALLET_AUDIT.providerConfigCreate },
        schema: {
          tags: [TAG],
          summary: 'Create a wallet provider config',
          description:
            `${SECRECY} Global configs cannot be created (\`isGlobal: true\` is refused). \`isDefault: true\` takes the default flag from the ` +
            "workspace's previous default. A `config` that does not fit its providerType is 400, naming each field (never its value); a " +
            "workspace that does not exist is 400; another tenant's workspace is 403.",
          operationId: 'createWalletProviderConfig',
          security: BEARER,
          body: CreateWalletProviderConfigBody,
          response: { 201: ok(WalletProviderConfig), ...errorResponses(401, 403) },
        },
      },
      async (request, reply) => reply.code(201).send(envelope(request, await api.createProviderConfig(request.caller, request.body))),
    );

    app.get(
      '/wallet-provider-configs/status',
      {
        config: { tier: 'high', access: 'internal' },
        schema: {
          tags: [TAG],
          summary: 'Every config and its version (service to service)',
          description:
            'For other Holdfast processes: needs `X-Internal-API-Key` (INTERNAL_API_KEY; no bearer token). Each config has an integer ' +
            '`version` that rises on every change, so a cache can refresh what moved. Without INTERNAL_API_KEY configured every call is 401.',
          operationId: 'walletProviderConfigStatus',
          security: INTERNAL_KEY,
          querystring: WalletProviderStatusQuery,
          response: { 200: ok(WalletProviderStatus), ...errorResponses(401) },
        },
      },
      async (request) => envelope(request, await api.providerConfigStatus(request.query)),
    );

    app.get(
      '/wallet-provider-configs/check-duplicate',
      {
        config: { tier: 'standard', roles: ADMIN_ROLES },
        schema: {
          tags: [TAG],
          summary: 'Is there already a config of this type in the scope?',
          description:
            'The scope is the workspace (`workspaceId`) or, without it, the global configs; `excludeId` ignores the config being edited. ' +
            'Advisory: creating a second config of a type is allowed.',
          operationId: 'checkDuplicateWalletProviderConfig',
          security: BEARER,
          querystring: CheckDuplicateQuery,
          response: { 200: ok(DuplicateCheckResult), ...errorResponses(401, 403) },
        },
      },
      async (request) => envelope(request, await api.checkDuplicateProviderConfig(requireActor(request.caller), request.query)),
    );

    app.get(
      '/wallet-provider-configs/:id',
      {
        config: { tier: 'standard', roles: ADMIN_ROLES },
        schema: {
          tags: [TAG],
          summary: 'Get a wallet provider config',
          description: "Without `config`. Another tenant's config is 404.",
          operationId: 'getWalletProviderConfig',
          security: BEARER,
          params: WalletProviderConfigParams,
          response: { 200: ok(WalletProviderConfig), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await api.getProviderConfig(requireActor(request.caller), request.params.id)),
    );

    app.patch(
      '/wallet-provider-configs/:id',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES, audit: WALLET_AUDIT.providerConfigUpdate },
        schema: {
          tags: [TAG],
          summary: 'Update a wallet provider config',
          description:
            `${SECRECY} The given \`config\` fields are merged over the stored ones and the whole is checked. Deactivating a config takes its ` +
            'default flag; an inactive config cannot be made default (400). Global configs are changed by SUPER_ADMINs only (403).',
          operationId: 'updateWalletProviderConfig',
          security: BEARER,
          params: WalletProviderConfigParams,
          body: UpdateWalletProviderConfigBody,
          response: { 200: ok(WalletProviderConfig), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await api.updateProviderConfig(request.caller, request.params.id, request.body)),
    );

    app.delete(
      '/wallet-provider-configs/:id',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES, audit: WALLET_AUDIT.providerConfigDelete },
        schema: {
          tags: [TAG],
          summary: 'Delete a wallet provider config',
          description: 'The sealed credentials go with it. Global configs are deleted by SUPER_ADMINs only (403).',
          operationId: 'deleteWalletProviderConfig',
          security: BEARER,
          params: WalletProviderConfigParams,
          response: { 204: NoContent, ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) => {
        await api.deleteProviderConfig(request.caller, request.params.id);
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/wallet-provider-configs/:id/test-connection',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES },
        schema: {
          tags: [TAG],
          summary: "Test the vendor's answer to the stored credentials",
          description:
            'Calls the vendor with the stored credentials. A vendor that refuses, times out or answers nonsense is `success: false` with ' +
            '`details.reason` (`unauthorized`, `timeout`, `unreachable`, `address_refused`, `malformed_response`, `vendor_error`; `undecryptable` when the ' +
            'credentials no longer open under DATA_ENCRYPTION_KEY), never an error. Nothing is changed.',
          operationId: 'testWalletProviderConnection',
          security: BEARER,
          params: WalletProviderConfigParams,
          response: { 200: ok(ConnectionTestResult), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await api.testProviderConnection(requireActor(request.caller), request.params.id)),
    );

    app.post(
      '/wallet-provider-configs/:id/set-default',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES, audit: WALLET_AUDIT.providerConfigSetDefault },
        schema: {
          tags: [TAG],
          summary: 'Make a config the default of its scope',
          description:
            "The default of its workspace (or, for a global config, of the global configs); the scope's previous default loses the flag " +
            '(named in the audit entry). An inactive config is 400. Answers the config.',
          operationId: 'setDefaultWalletProviderConfig',
          security: BEARER,
          params: WalletProviderConfigParams,
          response: { 200: ok(WalletProviderConfig), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await api.setDefaultProviderConfig(request.caller, request.params.id)),
    );
  };
}
