import {
  IdParams,
  SANDBOX_CREDENTIAL_LIMITS,
  SandboxCredential,
  SandboxCredentialParams,
  SandboxCredentialSummary,
} from '@holdfast/contracts';
import { envelope, errorResponses, type HttpApp } from '@holdfast/http-kit';
import { Type } from '@sinclair/typebox';
import { BEARER, NoContent, ok } from '../../http/schemas.js';
import { requireActor } from '../access/caller.js';
import { ADMIN_ROLES } from '../access/policy.js';
import { AUDIT } from '../audit/actions.js';
import type { SandboxCredentialsService } from './service.js';

const TAG = 'sandbox credentials';
const { active, issuedPerWindow } = SANDBOX_CREDENTIAL_LIMITS;

/** `/workspaces/{id}/sandbox-credentials`: payments platforms minted for the workspace to integrate against. */
export function sandboxCredentialRoutes(sandbox: SandboxCredentialsService) {
  return async (app: HttpApp) => {
    app.get(
      '/workspaces/:id/sandbox-credentials',
      {
        schema: {
          tags: [TAG],
          summary: 'List sandbox credentials',
          description:
            "The workspace's sandbox credentials, newest first, active and revoked, without key material (`apiKeyHint` and the OAuth `clientId`s identify them). Members and SUPER_ADMINs. 503 when payments does not answer.",
          operationId: 'listSandboxCredentials',
          security: BEARER,
          params: IdParams,
          response: { 200: ok(Type.Array(SandboxCredentialSummary)), ...errorResponses(401, 403, 404, 503) },
        },
      },
      async (request) => envelope(request, await sandbox.list(requireActor(request.caller), request.params.id, request.id)),
    );

    app.post(
      '/workspaces/:id/sandbox-credentials',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.sandboxCredentialIssue },
        schema: {
          tags: [TAG],
          summary: 'Issue sandbox credentials',
          description: [
            'Payments mints a sandbox platform for the workspace with a v1 API key (`apiKey`) and an OAuth client for v2 (`oauthClient`).',
            'Both secrets are in this answer only; Holdfast keeps hashes. No body. An ADMIN of the workspace or a SUPER_ADMIN.',
            `At most ${active} active per workspace (409 \`CONFLICT\`) and ${issuedPerWindow} issued per hour (429 \`RATE_LIMIT_EXCEEDED\` with \`Retry-After\`; revoked ones count).`,
            '503 `UPSTREAM_UNAVAILABLE` when payments did not answer: if it issued credentials anyway they are revoked within about a minute, and the attempt counts against the limits until then.',
          ].join(' '),
          operationId: 'issueSandboxCredentials',
          security: BEARER,
          params: IdParams,
          response: { 201: ok(SandboxCredential), ...errorResponses(401, 403, 404, 409, 503) },
        },
      },
      async (request, reply) => reply.code(201).send(envelope(request, await sandbox.issue(request.caller, request.params.id))),
    );

    app.delete(
      '/workspaces/:id/sandbox-credentials/:platformId',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.sandboxCredentialRevoke },
        schema: {
          tags: [TAG],
          summary: 'Revoke sandbox credentials',
          description:
            "Payments deactivates the platform: its API key stops working and its OAuth clients' tokens are revoked, on every instance within a second; the platform's webhooks are deactivated. 404 for a credential that is not the workspace's or already revoked; 503 (nothing changed) when payments does not answer. An ADMIN of the workspace or a SUPER_ADMIN.",
          operationId: 'revokeSandboxCredentials',
          security: BEARER,
          params: SandboxCredentialParams,
          response: { 204: NoContent, ...errorResponses(401, 403, 404, 503) },
        },
      },
      async (request, reply) => {
        await sandbox.revoke(request.caller, request.params.id, request.params.platformId);
        return reply.code(204).send(null);
      },
    );
  };
}
