import { ChainEnv, CommonEnv, durationMs, exitOnConfigError, loadConfig, parseChainRpcUrls, portField, withDotEnv } from '@holdfast/config';
import { Type } from '@sinclair/typebox';

export const SERVICE_NAME = 'chain-indexer';

export const IndexerEnv = Type.Object({
  ...CommonEnv,
  ...ChainEnv,
  INDEXER_PORT: portField(3004),
});

export type IndexerConfig = ReturnType<typeof resolve>;

function resolve(env: Record<string, string | undefined>) {
  const raw = loadConfig(IndexerEnv, env, (c) =>
    c.APP_ENV !== 'local' && !c.CHAIN_RPC_URLS
      ? [`CHAIN_RPC_URLS: is required when APP_ENV is ${c.APP_ENV}: the indexer needs a chain to follow (missing)`]
      : [],
  );
  return {
    ...raw,
    chainRpcUrls: parseChainRpcUrls(raw.CHAIN_RPC_URLS, raw.APP_ENV),
    shutdownTimeoutMs: durationMs(raw.SHUTDOWN_TIMEOUT),
  };
}

/** Validates an environment (tests pass their own). */
export function indexerConfigFrom(env: Record<string, string | undefined>): IndexerConfig {
  return resolve(env);
}

/** The only place chain-indexer reads process.env: a .env file under the real environment. */
export function loadIndexerConfig(): IndexerConfig {
  return exitOnConfigError(() => resolve(withDotEnv(process.env)), SERVICE_NAME);
}
