import { workspaceEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import { WORKSPACE_SURFACE } from '../../http/surface.js';
import { requireActor } from '../access/index.js';
import type { SandboxCredentialsService } from './service.js';

/** `/workspaces/{id}/sandbox-credentials`: payments platforms minted for the workspace to integrate against. */
export function sandboxCredentialRoutes(sandbox: SandboxCredentialsService) {
  return async (app: HttpApp) => {
    serveRoutes(app, WORKSPACE_SURFACE, [
      route(api.listSandboxCredentials, async (request) => sandbox.list(requireActor(request.caller), request.params.id, request.id)),
      route(api.issueSandboxCredentials, async (request) => sandbox.issue(request.caller, request.params.id)),
      route(api.revokeSandboxCredentials, async (request, reply) => {
        await sandbox.revoke(request.caller, request.params.id, request.params.platformId);
        return reply.code(204).send(null);
      }),
    ]);
  };
}
