import { type AppEnv, AppError, CHAIN_IDS, type Network, TESTNET_OF, TESTNETS } from '@holdfast/contracts';

/**
 * Rules every way of creating a transaction shares (single create, batch legs, the Workspace API's
 * forwarded create): the network an environment accepts (amounts are in amounts.ts).
 */

/** The environment's base network when none is sent. */
export function defaultNetwork(appEnv: AppEnv): Network {
  return appEnv === 'production' ? 'base' : 'base-sepolia';
}

/**
 * The network a transaction runs on: the default when none is sent; outside production a mainnet
 * name is coerced to its testnet; in production a testnet is refused. A sandbox credential's
 * platform (`sandbox`) moves test money only: a network that is not a testnet is refused (403, in
 * production, where nothing is coerced), so sandbox credentials never reach a mainnet.
 */
export function resolveNetwork(
  appEnv: AppEnv,
  requested: Network | undefined,
  options: { field?: string; sandbox?: boolean } = {},
): { network: Network; chainId: number | null } {
  const field = options.field ?? 'blockchainNetwork';
  let network = requested ?? defaultNetwork(appEnv);
  if (appEnv === 'production') {
    if (TESTNETS.includes(network)) {
      throw new AppError('TESTNET_NOT_ALLOWED_IN_PRODUCTION', `${network} is a testnet; production accepts mainnets only`, { field });
    }
  } else {
    network = TESTNET_OF[network] ?? network;
  }
  if (options.sandbox && !TESTNETS.includes(network)) {
    throw new AppError('FORBIDDEN', `${network} is a mainnet; a sandbox credential moves money on test networks only`, {
      field,
      network,
      reason: 'sandbox_mainnet',
    });
  }
  return { network, chainId: CHAIN_IDS[network] ?? null };
}
