import { workspaceEndpoints as api } from '@holdfast/contracts';
import { envelope, type HttpApp, serveEndpoint } from '@holdfast/http-kit';
import { ADMIN_ROLES, requireActor } from '../access/index.js';
import { AUDIT } from '../audit/index.js';
import type { SandboxCredentialsService } from './service.js';

/** `/workspaces/{id}/sandbox-credentials`: payments platforms minted for the workspace to integrate against. */
export function sandboxCredentialRoutes(sandbox: SandboxCredentialsService) {
  return async (app: HttpApp) => {
    serveEndpoint(app, api.listSandboxCredentials, {}, async (request) =>
      envelope(request, await sandbox.list(requireActor(request.caller), request.params.id, request.id)),
    );

    serveEndpoint(
      app,
      api.issueSandboxCredentials,
      { config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.sandboxCredentialIssue } },
      async (request, reply) => reply.code(201).send(envelope(request, await sandbox.issue(request.caller, request.params.id))),
    );

    serveEndpoint(
      app,
      api.revokeSandboxCredentials,
      { config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.sandboxCredentialRevoke } },
      async (request, reply) => {
        await sandbox.revoke(request.caller, request.params.id, request.params.platformId);
        return reply.code(204).send(null);
      },
    );
  };
}
