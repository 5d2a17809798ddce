import { PAYMENTS_V2_OPERATIONS, type PaymentsOperation, v2SuccessorPath } from '@holdfast/contracts';
import type { DeprecatedSurface, OpenApiInfo } from '@holdfast/http-kit';

export const V1_SUNSET = 'Sun, 01 Nov 2026 00:00:00 GMT';

/**
 * Payments v1 is deprecated: every v1 answer names its sunset and its v2 successor, the renamed
 * v2 path where v2 renamed the operation (`…/submit-hash` -> `…/hash`), `/api/v2` itself where
 * the operation has no v2 counterpart.
 */
export function v1Deprecation(enforced: boolean): DeprecatedSurface {
  return {
    matches: (url) => url === '/api/v1' || url.startsWith('/api/v1/') || url.startsWith('/api/v1?'),
    sunset: V1_SUNSET,
    link: (url) => `<${v2SuccessorPath(url)}>; rel="successor-version"`,
    enforced,
    successor: '/api/v2',
  };
}

function authOf(o: PaymentsOperation): string {
  if (o.auth === 'none') return 'none';
  if (o.auth === 'client') return 'OAuth client';
  if ('scopes' in o.auth) return o.auth.scopes.length ? o.auth.scopes.map((s) => `\`${s}\``).join(', ') : 'any token';
  return `one of ${o.auth.anyScope.map((s) => `\`${s}\``).join(', ')}`;
}

/** The v2 operation list as a Markdown table (OpenAPI description and docs/api/versions.md). */
export function v2OperationTable(): string {
  const rows = PAYMENTS_V2_OPERATIONS.map(
    (o, i) =>
      `| ${i + 1} | ${o.method} | \`${o.path}\` | ${o.v1.map((p) => `\`${p}\``).join(', ') || '—'} | ${authOf(o)} | ${o.tier} | ${o.summary} |`,
  );
  return ['| # | method | v2 path | v1 path | scopes | tier | operation |', '| --- | --- | --- | --- | --- | --- | --- |', ...rows].join(
    '\n',
  );
}

export const openApiInfo: OpenApiInfo = {
  title: 'Holdfast Payments API',
  version: '2.0.0',
  description: [
    'Stablecoin payments between blockchain addresses, optionally held in an on-chain escrow.',
    '',
    '`/api/v2` is current and accepts OAuth 2.0 bearer tokens only (an `X-API-Key` answers 401). `/api/v1` is deprecated',
    '(sunset 1 November 2026) and accepts `X-API-Key` or bearer tokens; every v1 answer carries `Deprecation: true`,',
    '`Sunset` and a `Link` to its v2 successor.',
    '',
    'Every operation has a rate-limit tier (`x-rate-limit-tier`): public 20, standard 100, high-frequency 1000 and admin 50',
    'requests per minute by default, counted per API key or OAuth client (per client address on public operations).',
    'Every answer carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`; a 429 also `Retry-After`.',
    '',
    'Every error is the envelope `{success: false, data: null, error: {code, message, statusCode, details?}, meta}`.',
    '',
    "## The 38 operations of v2 (the specification's 36 and the relayer's two)",
    '',
    'Renames from v1: `submit-hash` → `hash`, `submit-escrow-hash` → `escrow-hash`, `authorize-release` → `release/attest`,',
    '`release-early/authorize` → `release-early/attest`, `transactions/batch` → `transactions/batches`,',
    "`controls/verify-vendor-sms` → `controls/vendor-sms/verify`; compliance drops v1's doubled `/api/v1` prefix.",
    'Webhook and OAuth-client management live on the Workspace API; API keys are v1 credentials.',
    '',
    v2OperationTable(),
    '',
    '## Beyond the 38 operations',
    '',
    '`GET /api/v2/events/stream` (tag `events`): the calling platform’s events as server-sent events, resumable with',
    '`Last-Event-ID`, an extension the SDK and the `holdfast listen` command use (docs/api/events-stream.md).',
    '',
    '`/api/v2/checkout/sessions` (tag `checkout`): hosted checkout sessions, a payment a platform asks for and a payer',
    'pays on the hosted page; `checkout.session.completed` once its escrow is locked (docs/checkout.md).',
    '',
    '`/api/v2/x402/{supported,verify,settle}` (tag `x402`): Holdfast as an x402 v2 facilitator for a seller’s x402',
    'middleware, authenticated by the platform’s bearer token; a settled payment is a transaction of the platform (docs/x402.md).',
  ].join('\n'),
  tags: [
    { name: 'transactions', description: 'Transactions: create, read, list, move through their states, quotes (docs/transactions.md)' },
    { name: 'batches', description: 'One sender, many legs (docs/batches.md)' },
    {
      name: 'checkout',
      description: 'Checkout sessions: a payment the payer completes on the hosted page, an extension beyond the spec (docs/checkout.md)',
    },
    {
      name: 'x402',
      description:
        'x402 v2 facilitator: supported, verify, settle, and the settlement of a payment, an extension beyond the spec (docs/x402.md)',
    },
    { name: 'disputes', description: 'Disputes, their tiers and evidence (docs/disputes.md)' },
    { name: 'platforms', description: 'Platforms, API keys and scopes' },
    { name: 'oauth', description: 'OAuth 2.0 client credentials: clients, tokens, revocation, introspection' },
    { name: 'compliance', description: "Compliance verifications and the identity provider's signed callback (docs/api/compliance.md)" },
    {
      name: 'operations',
      description: 'Operator routes (admin scope): settlement items that need a person, reconciliation with the chain (docs/settlement.md)',
    },
    { name: 'controls', description: 'Control templates, one-time SMS codes of two-factor controls, risk reviews (docs/controls.md)' },
    {
      name: 'test_helpers',
      description:
        'Test clock: a sandbox credential or a local deployment ends the hold period of its own transaction now, an extension beyond the spec (docs/test-clock.md)',
    },
    {
      name: 'events',
      description:
        'The platform’s events live as server-sent events: an extension beyond the spec’s operations (docs/api/events-stream.md)',
    },
    {
      name: 'webhooks (v1)',
      description:
        'Webhook subscriptions of your platform (v1 only; on the Workspace API for v2 integrations). Receiving them: docs/webhooks.md',
    },
  ],
  securitySchemes: {
    apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Platform API key (`hf_test_…` / `hf_live_…`), v1 only.' },
    bearer: { type: 'http', scheme: 'bearer', description: 'OAuth 2.0 client-credentials access token from POST /api/v2/oauth/token.' },
    clientBasic: {
      type: 'http',
      scheme: 'basic',
      description: 'OAuth client authentication (client_secret_basic): client_id and client_secret.',
    },
  },
};
