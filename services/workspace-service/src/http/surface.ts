import type { DeprecatedSurface, OpenApiInfo } from '@holdfast/http-kit';

export const UNVERSIONED_SUNSET = 'Mon, 01 Jun 2026 00:00:00 GMT';

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

export const openApiInfo: OpenApiInfo = {
  title: 'Holdfast Workspace API',
  version: '1.0.0',
  description: [
    'The admin backend for Holdfast tenants: workspaces, users and sessions, customers and wallets,',
    'transactions across connected platforms, webhooks, OAuth clients, contracts, integrations,',
    'settings, notifications and audit logs.',
    '',
    'Answers use the envelope `{success, data, meta}`; errors `{success: false, data: null, error, meta}`.',
  ].join('\n'),
  securitySchemes: {
    bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from POST /identity/login (1 hour).' },
  },
};
