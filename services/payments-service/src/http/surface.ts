import type { DeprecatedSurface, OpenApiInfo } from '@holdfast/http-kit';

export const V1_SUNSET = 'Sun, 01 Nov 2026 00:00:00 GMT';

/** Payments v1 is deprecated: every v1 answer names its sunset and its v2 successor. */
export function v1Deprecation(enforced: boolean): DeprecatedSurface {
  return {
    matches: (url) => url === '/api/v1' || url.startsWith('/api/v1/') || url.startsWith('/api/v1?'),
    sunset: V1_SUNSET,
    link: (url) => `<${url.split('?')[0]?.replace(/^\/api\/v1/, '/api/v2')}>; rel="successor-version"`,
    enforced,
    successor: '/api/v2',
  };
}

export const openApiInfo: OpenApiInfo = {
  title: 'Holdfast Payments API',
  version: '2.0.0',
  description: [
    'Stablecoin payments between blockchain addresses, optionally held in an on-chain escrow.',
    '',
    '`/api/v2` is current and accepts OAuth 2.0 bearer tokens only. `/api/v1` is deprecated',
    '(sunset 1 November 2026) and accepts `X-API-Key` or bearer tokens.',
    '',
    'Every error is the envelope `{success: false, data: null, error: {code, message, statusCode, details?}, meta}`.',
  ].join('\n'),
  securitySchemes: {
    apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Platform API key (`hf_test_…` / `hf_live_…`), v1 only.' },
    bearer: { type: 'http', scheme: 'bearer', description: 'OAuth 2.0 client-credentials access token from POST /api/v2/oauth/token.' },
  },
};
