import type { DeprecatedSurface, HttpApp, OpenApiInfo } from '@holdfast/http-kit';
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
        'Payments platforms minted for a workspace: a v1 API key and a v2 OAuth client, shown once (docs/workspace-integrations.md)',
    },
    { name: 'OAuth clients', description: 'OAuth clients of a workspace for the Payments API, and the scopes they may hold' },
    {
      name: 'webhooks',
      description: "A workspace's webhook subscriptions, delivery logs, tests, resends and replays (receiving them: docs/webhooks.md)",
    },
    { name: 'files', description: 'Uploaded avatars' },
    { name: UNVERSIONED_TAG, description: 'The `/api/v1` routes at their deprecated unversioned paths' },
  ],
  securitySchemes: {
    bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from POST /identity/login (1 hour).' },
  },
};
