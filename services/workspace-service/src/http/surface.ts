import type { WorkspaceEndpoint } from '@holdfast/contracts';
import type { DeprecatedSurface, HttpApp, OpenApiInfo, RouteSurface } from '@holdfast/http-kit';
import type { FastifySchema } from 'fastify';

/**
 * The unversioned `/api/*` routes' sunset, written as an RFC 8594 HTTP-date (the spec's
 * `2026-06-01`); see docs/api-versioning.md.
 */
export const UNVERSIONED_SUNSET = 'Mon, 01 Jun 2026 00:00:00 GMT';
export const UNVERSIONED_TAG = 'unversioned (deprecated)';

/** The unversioned `/api/*` routes are deprecated in favour of `/api/v1/*`. */
export function unversionedDeprecation(enforced: boolean): DeprecatedSurface {
  return {
    matches: (url) => url.startsWith('/api/') && !url.startsWith('/api/v1/') && url !== '/api/v1',
    sunset: UNVERSIONED_SUNSET,
    link: () => '</api/v1>; rel="successor-version"',
    enforced,
    successor: '/api/v1',
  };
}

/**
 * For a scope that re-registers the `/api/v1` routes under `/api`: each copy is marked deprecated
 * in the OpenAPI description, under one tag, with its own operation id.
 */
export function markUnversioned(scope: HttpApp): void {
  scope.addHook('onRoute', (route) => {
    const schema = route.schema as Record<string, unknown> | undefined;
    if (!schema || schema.hide) return;
    const operationId = typeof schema.operationId === 'string' ? `${schema.operationId}Unversioned` : undefined;
    const successor = route.url.replace(/^\/api\//, '/api/v1/');
    route.schema = {
      ...(schema as FastifySchema),
      ...(operationId ? { operationId } : {}),
      tags: [UNVERSIONED_TAG],
      deprecated: true,
      description: `Deprecated: use ${successor} (sunset ${UNVERSIONED_SUNSET}; answers 410 once the sunset is enforced).${
        typeof schema.description === 'string' ? `\n\n${schema.description}` : ''
      }`,
    } as FastifySchema;
  });
}

export const openApiInfo: OpenApiInfo = {
  title: 'Holdfast Workspace API',
  version: '1.0.0',
  description: [
    'The admin backend for Holdfast tenants: workspaces, users and sessions, customers and wallets,',
    'transactions across connected platforms, webhooks, OAuth clients, contracts, integrations,',
    'settings, notifications and audit logs.',
    '',
    'Sessions live at the host root (`/auth/*`, `/identity/*`); everything else under `/api/v1`.',
    'Every `/api/v1` route is also served at the deprecated unversioned `/api/...` path.',
    '',
    'Roles: SUPER_ADMIN (Holdfast operators, every workspace), ADMIN (administers its own workspace),',
    'CLIENT (member of its workspace). Where an operation says "ADMIN or SUPER_ADMIN", an ADMIN acts',
    'within its own workspace only.',
    '',
    'Answers use the envelope `{success, data, meta}`; errors `{success: false, data: null, error, meta}`.',
  ].join('\n'),
  tags: [
    { name: 'session', description: 'Sign-up, e-mail verification, login, refresh, logout' },
    { name: 'workspaces', description: 'Tenants, their billing, wallet settings and payments platforms' },
    { name: 'users', description: 'Accounts, roles and profiles' },
    { name: 'audit logs', description: 'Every administrative act, successful or refused' },
    {
      name: 'sandbox credentials',
      description:
        'Payments platforms minted for a workspace: a v1 API key and a v2 OAuth client, shown once (docs/workspace-credentials-and-webhooks.md)',
    },
    { name: 'OAuth clients', description: 'OAuth clients of a workspace for the Payments API, and the scopes they may hold' },
    {
      name: 'webhooks',
      description: "A workspace's webhook subscriptions, delivery logs, tests, resends and replays (receiving them: docs/webhooks.md)",
    },
    { name: 'files', description: 'Uploaded avatars' },
    { name: 'integrations', description: 'The integration catalog and the integrations of a workspace' },
    { name: 'settings', description: 'Settings of a workspace and platform-wide settings' },
    { name: 'notifications', description: "Your notifications about your workspace's payments and disputes, and your preferences" },
    { name: 'customers', description: "A workspace's customers, administered by its ADMINs" },
    { name: 'customer self-service', description: 'Customers registering, signing in and linking their wallet (customer JWT)' },
    { name: 'wallet provider configs', description: 'Custody vendor credentials (write-only) per workspace' },
    { name: 'external wallet configs', description: 'The browser wallet connectors a workspace offers its customers' },
    { name: 'wallets', description: "A workspace's wallet accounts and their balances; customers' CUSTODY_A wallets" },
    { name: 'contracts', description: 'The escrow contracts a workspace uses: dedicated or shared' },
    { name: 'Transactions', description: "Payments of the workspace's platforms, aggregated (docs/workspace-transactions.md)" },
    { name: UNVERSIONED_TAG, description: 'The `/api/v1` routes at their deprecated unversioned paths' },
  ],
  securitySchemes: {
    bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from POST /identity/login (1 hour).' },
    customerBearer: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'Customer access token from POST /api/v1/workspaces/{id}/customers/auth/login (1 hour), valid in its workspace only.',
    },
    internalApiKey: { type: 'apiKey', in: 'header', name: 'X-Internal-API-Key', description: 'INTERNAL_API_KEY: Holdfast processes only.' },
    workspaceKey: {
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
      description: "The workspace key: a Payments API key of one of the workspace's platforms (e.g. its sandbox credentials' apiKey).",
    },
  },
};

/**
 * The Workspace API's surface for `serveRoutes` of @holdfast/http-kit: each entry is served once,
 * with the access, roles, tier and audit action its catalogue entry gives (the authentication and
 * the audit trail read them from `config`), and its answers wrapped in the `{success, data, meta}`
 * envelope. The deprecated unversioned twins are the scope's: `registerWorkspaceApi` serves every
 * versioned module again under `/api` (`markUnversioned`).
 */
export const WORKSPACE_SURFACE: RouteSurface<WorkspaceEndpoint> = {
  envelope: true,
  operations(entry) {
    const { access, roles, tier, audit, ...endpoint } = entry;
    return [{ endpoint, config: { access, ...(roles ? { roles } : {}), ...(tier ? { tier } : {}), ...(audit ? { audit } : {}) } }];
  },
};
