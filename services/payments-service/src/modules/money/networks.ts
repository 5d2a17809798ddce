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
 * name is coerced to its testnet; in production a testnet is refused.
 */
export function resolveNetwork(
  appEnv: AppEnv,
  requested: Network | undefined,
  field = 'blockchainNetwork',
): { network: Network; chainId: number | null } {
  let network = requested ?? defaultNetwork(appEnv);
  if (appEnv === 'production') {
    if (TESTNETS.includes(network)) {
      throw new AppError('TESTNET_NOT_ALLOWED_IN_PRODUCTION', `${network} is a testnet; production accepts mainnets only`, { field });
    }
  } else {
    network = TESTNET_OF[network] ?? network;
  }
  return { network, chainId: CHAIN_IDS[network] ?? null };
}
