import { Type } from '@sinclair/typebox';
import { SANDBOX_CREDENTIAL_LIMITS, SandboxCredentialParams, SandboxCredentialSummary } from '../../commands/forwarding.js';
import { NoContent, SuccessEnvelope as ok } from '../../common/envelope.js';
import { SandboxCredential } from '../../payments/access.js';
import { WORKSPACE_AUDIT } from '../audit-actions.js';
import { IdParams } from '../common.js';
import { ADMIN_CHANGE, resource } from './define.js';

// sandbox credentials

const endpoint = resource({ tags: ['sandbox credentials'] });

export const listSandboxCredentials = endpoint('GET /workspaces/:id/sandbox-credentials', {
  operationId: 'listSandboxCredentials',
  summary: 'List sandbox credentials',
  description:
    "The workspace's sandbox credentials, newest first, active and revoked, without key material (`apiKeyHint` and the OAuth `clientId`s identify them). Members and SUPER_ADMINs. 503 when payments does not answer.",
  params: IdParams,
  response: { 200: ok(Type.Array(SandboxCredentialSummary)) },
  errors: [403, 404, 503],
});

export const issueSandboxCredentials = endpoint('POST /workspaces/:id/sandbox-credentials', {
  operationId: 'issueSandboxCredentials',
  summary: 'Issue sandbox credentials',
  description: [
    'Payments mints a sandbox platform for the workspace with a v1 API key (`apiKey`) and an OAuth client for v2 (`oauthClient`).',
    'Both secrets are in this answer only; Holdfast keeps hashes. No body. An ADMIN of the workspace or a SUPER_ADMIN.',
    'Only for an `active` workspace: a new (`pending`) workspace gets credentials once a Holdfast operator approves it (sets `status: active`);',
    'until then, and for a `suspended` or `inactive` one, 403 `FORBIDDEN` with `details.reason: "workspace_not_active"` and nothing is minted.',
    `At most ${SANDBOX_CREDENTIAL_LIMITS.active} active per workspace (409 \`CONFLICT\`) and ${SANDBOX_CREDENTIAL_LIMITS.issuedPerWindow} issued per hour (429 \`RATE_LIMIT_EXCEEDED\` with \`Retry-After\`; revoked ones count).`,
    '503 `UPSTREAM_UNAVAILABLE` when payments did not answer: if it issued credentials anyway they are revoked within about a minute, and the attempt counts against the limits until then.',
  ].join(' '),
  ...ADMIN_CHANGE,
  audit: WORKSPACE_AUDIT.sandboxCredentialIssue,
  params: IdParams,
  response: { 201: ok(SandboxCredential) },
  errors: [404, 409, 503],
});

export const revokeSandboxCredentials = endpoint('DELETE /workspaces/:id/sandbox-credentials/:platformId', {
  operationId: 'revokeSandboxCredentials',
  summary: 'Revoke sandbox credentials',
  description:
    "Payments deactivates the platform: its API key stops working and its OAuth clients' tokens are revoked, on every instance within a second; the platform's webhooks are deactivated. 404 for a credential that is not the workspace's or already revoked; 503 (nothing changed) when payments does not answer. An ADMIN of the workspace or a SUPER_ADMIN.",
  ...ADMIN_CHANGE,
  audit: WORKSPACE_AUDIT.sandboxCredentialRevoke,
  params: SandboxCredentialParams,
  response: { 204: NoContent },
  errors: [404, 503],
});
