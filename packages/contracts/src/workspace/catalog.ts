import { type Static, Type } from '@sinclair/typebox';

/**
 * OAuth client scopes of the Workspace API (`resource:action`, resource first) and the Payments API
 * scope (`action:resource`) each one grants. Workspace OAuth clients are tenant integrations: the
 * Payments API's key-management scopes (`manage:api-keys`, `admin:platform`) are not offered.
 *
 * `grantableBy` is the lowest workspace role that may put the scope on a client: a credential a
 * member mints can do no more than the member may do through the Workspace API (docs/api/scopes.md).
 * A CLIENT reads transactions and manages webhooks there, so it may grant reading transactions,
 * webhooks and the platform read. Every scope that moves money (`transactions:write` also releases
 * on v1; move, reverse, cancel, rescind), disputes, evidence, templates, customers and compliance
 * is for ADMINs.
 */
export const WORKSPACE_OAUTH_SCOPES = [
  {
    scope: 'transactions:read',
    paymentsScope: 'read:transactions',
    apiVersions: ['v1', 'v2'],
    grantableBy: 'CLIENT',
    description: 'Read transactions and batches.',
  },
  {
    scope: 'transactions:write',
    paymentsScope: 'write:transactions',
    apiVersions: ['v1', 'v2'],
    grantableBy: 'ADMIN',
    description: 'Create transactions and batches.',
  },
  {
    scope: 'transactions:move',
    paymentsScope: 'move:transactions',
    apiVersions: ['v2'],
    grantableBy: 'ADMIN',
    description: 'Money movement on the Payments API v2.',
  },
  {
    scope: 'transactions:reverse',
    paymentsScope: 'reverse:transactions',
    apiVersions: ['v2'],
    grantableBy: 'ADMIN',
    description: 'Reversals on the Payments API v2 (what cancel and rescind are on v1).',
  },
  {
    scope: 'transactions:cancel',
    paymentsScope: 'cancel:transactions',
    apiVersions: ['v1'],
    grantableBy: 'ADMIN',
    description: 'Cancel transactions (v1 only).',
  },
  {
    scope: 'transactions:rescind',
    paymentsScope: 'rescind:transactions',
    apiVersions: ['v1'],
    grantableBy: 'ADMIN',
    description: 'Rescind transactions (v1 only).',
  },
  {
    scope: 'customers:read',
    paymentsScope: 'read:customers',
    apiVersions: ['v1', 'v2'],
    grantableBy: 'ADMIN',
    description: 'Read customers.',
  },
  {
    scope: 'customers:write',
    paymentsScope: 'write:customers',
    apiVersions: ['v1', 'v2'],
    grantableBy: 'ADMIN',
    description: 'Create and update customers.',
  },
  {
    scope: 'templates:read',
    paymentsScope: 'read:templates',
    apiVersions: ['v1', 'v2'],
    grantableBy: 'ADMIN',
    description: 'Read control templates.',
  },
  {
    scope: 'templates:write',
    paymentsScope: 'write:templates',
    apiVersions: ['v1', 'v2'],
    grantableBy: 'ADMIN',
    description: 'Create and update control templates.',
  },
  {
    scope: 'disputes:read',
    paymentsScope: 'read:disputes',
    apiVersions: ['v1', 'v2'],
    grantableBy: 'ADMIN',
    description: 'Read disputes and their evidence.',
  },
  {
    scope: 'disputes:write',
    paymentsScope: 'write:disputes',
    apiVersions: ['v1', 'v2'],
    grantableBy: 'ADMIN',
    description: 'Open, escalate and resolve disputes.',
  },
  {
    scope: 'evidence:submit',
    paymentsScope: 'submit:evidence',
    apiVersions: ['v1', 'v2'],
    grantableBy: 'ADMIN',
    description: 'Submit evidence to disputes.',
  },
  {
    scope: 'webhooks:read',
    paymentsScope: 'read:webhooks',
    apiVersions: ['v1'],
    grantableBy: 'CLIENT',
    description: 'Read webhook subscriptions (v1).',
  },
  {
    scope: 'webhooks:write',
    paymentsScope: 'write:webhooks',
    apiVersions: ['v1'],
    grantableBy: 'CLIENT',
    description: 'Manage webhook subscriptions (v1).',
  },
  {
    scope: 'compliance:read',
    paymentsScope: 'read:compliance',
    apiVersions: ['v1', 'v2'],
    grantableBy: 'ADMIN',
    description: 'Read compliance verifications.',
  },
  {
    scope: 'compliance:write',
    paymentsScope: 'write:compliance',
    apiVersions: ['v1', 'v2'],
    grantableBy: 'ADMIN',
    description: 'Create compliance verifications.',
  },
  {
    scope: 'platform:read',
    paymentsScope: 'read:platform',
    apiVersions: ['v1', 'v2'],
    grantableBy: 'CLIENT',
    description: 'Read the platform the client belongs to.',
  },
] as const;
export type WorkspaceOAuthScope = (typeof WORKSPACE_OAUTH_SCOPES)[number]['scope'];
export const WORKSPACE_OAUTH_SCOPE_NAMES = WORKSPACE_OAUTH_SCOPES.map((s) => s.scope) as WorkspaceOAuthScope[];

const byScope = new Map<string, string>(WORKSPACE_OAUTH_SCOPES.map((s) => [s.scope, s.paymentsScope]));
const byPaymentsScope = new Map<string, string>(WORKSPACE_OAUTH_SCOPES.map((s) => [s.paymentsScope, s.scope]));

/** `transactions:read` -> `read:transactions`; undefined for a scope the Workspace API does not offer. */
export function toPaymentsScope(scope: string): string | undefined {
  return byScope.get(scope);
}

/** `read:transactions` -> `transactions:read`; undefined for a Payments scope not offered to workspace clients. */
export function fromPaymentsScope(paymentsScope: string): string | undefined {
  return byPaymentsScope.get(paymentsScope);
}

/**
 * The requested scopes a member of `role` may not grant (empty when it may grant them all).
 * SUPER_ADMIN and ADMIN grant every offered scope; a CLIENT only those `grantableBy: 'CLIENT'`.
 */
export function scopesBeyondRole(role: 'SUPER_ADMIN' | 'ADMIN' | 'CLIENT', scopes: readonly string[]): string[] {
  if (role !== 'CLIENT') return [];
  return scopes.filter((s) => grantableBy.get(s) !== 'CLIENT');
}

const grantableBy = new Map<string, string>(WORKSPACE_OAUTH_SCOPES.map((s) => [s.scope, s.grantableBy]));

export const OAuthScopeInfo = Type.Object({
  scope: Type.String({ description: '`resource:action`, as OAuth client requests write it.' }),
  paymentsScope: Type.String({ description: 'The Payments API scope it grants.' }),
  apiVersions: Type.Array(Type.String(), { description: 'Payments API versions where the scope has an effect.' }),
  grantableBy: Type.Union([Type.Literal('CLIENT'), Type.Literal('ADMIN')], {
    description: 'The lowest workspace role that may grant the scope to an OAuth client (an ADMIN grants every scope).',
  }),
  description: Type.String(),
});
export type OAuthScopeInfo = Static<typeof OAuthScopeInfo>;
