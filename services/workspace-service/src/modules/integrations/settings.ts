import { durationMs } from '@holdfast/config';
import { type AppEnv, INTEGRATION_CATALOG, type IntegrationKey } from '@holdfast/contracts';
import { Type } from '@sinclair/typebox';

// The environment variables of the integrations. Only config.ts reads the environment: it spreads
// IntegrationEnv into the service's schema and calls resolveIntegrationSettings on the result.

const CALLING_KEYS = INTEGRATION_CATALOG.filter((k) => k.callsProvider).map((k) => k.key);
const PAIR = `(${CALLING_KEYS.join('|')})=https?://[^,=\\s]+`;

export const IntegrationEnv = {
  INTEGRATION_PROVIDER_URLS: Type.Optional(
    Type.String({
      pattern: `^${PAIR}(,${PAIR})*$`,
      errorMessage: `must be kind=url pairs, comma-separated, for the kinds ${CALLING_KEYS.join(', ')}`,
    }),
  ),
  INTEGRATION_PROVIDER_TIMEOUT: Type.String({ format: 'duration', default: '10s', errorMessage: 'must be a duration such as 10s' }),
};

export interface IntegrationSettings {
  /** The API base URL of each kind that calls a provider; a kind without one cannot be set up. */
  providerUrls: Partial<Record<IntegrationKey, string>>;
  providerTimeoutMs: number;
}

type Raw = { APP_ENV: AppEnv; INTEGRATION_PROVIDER_URLS?: string | undefined; INTEGRATION_PROVIDER_TIMEOUT: string };

function pairs(value: string | undefined): [string, string][] {
  if (!value) return [];
  return value.split(',').map((pair) => {
    const at = pair.indexOf('=');
    return [pair.slice(0, at), pair.slice(at + 1)];
  });
}

/** For `refine`: provider URLs must be https outside `local`, and name each kind once. */
export function integrationProblems(raw: Raw): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [key, url] of pairs(raw.INTEGRATION_PROVIDER_URLS)) {
    if (seen.has(key)) problems.push(`INTEGRATION_PROVIDER_URLS: names ${key} twice`);
    seen.add(key);
    if (raw.APP_ENV !== 'local' && !url.startsWith('https://')) {
      problems.push(`INTEGRATION_PROVIDER_URLS: the URL of ${key} must be https when APP_ENV is ${raw.APP_ENV}`);
    }
  }
  return problems;
}

export function resolveIntegrationSettings(raw: Raw): IntegrationSettings {
  return {
    providerUrls: Object.fromEntries(pairs(raw.INTEGRATION_PROVIDER_URLS)) as Partial<Record<IntegrationKey, string>>,
    providerTimeoutMs: durationMs(raw.INTEGRATION_PROVIDER_TIMEOUT),
  };
}
