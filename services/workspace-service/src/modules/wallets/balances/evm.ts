import type { BalanceWarning, Network, TokenBalance } from '@holdfast/contracts';
import { type Address, BaseError, erc20Abi, formatUnits, HttpRequestError, type PublicClient, RpcRequestError, TimeoutError } from 'viem';
import { EVM_NATIVE_SYMBOL } from '../common/chains.js';
import type { TokenContract } from '../common/settings.js';
import type { NetworkRead } from './solana.js';

/**
 * What went wrong talking to an RPC, in words that never quote its URL (RPC URLs often hold an API
 * key, and viem's own messages include them).
 */
export function rpcFailure(error: unknown, timeoutMs: number): Pick<BalanceWarning, 'code' | 'message'> {
  const found = (kind: new (...args: never[]) => Error) =>
    error instanceof BaseError ? error.walk((e) => e instanceof kind) : error instanceof kind ? error : null;
  if (found(TimeoutError)) return { code: 'RPC_TIMEOUT', message: `the RPC did not answer within ${timeoutMs} ms` };
  if (found(RpcRequestError)) return { code: 'RPC_UNAVAILABLE', message: 'the RPC answered with an error' };
  const http = found(HttpRequestError) as HttpRequestError | null;
  if (http) {
    if (http.status === undefined && /json|unexpected token|parse/i.test(String(http.details))) {
      return { code: 'MALFORMED_RESPONSE', message: 'the RPC answered something that is not JSON-RPC' };
    }
    return { code: 'RPC_UNAVAILABLE', message: http.status ? `the RPC answered HTTP ${http.status}` : 'the RPC could not be reached' };
  }
  return { code: 'MALFORMED_RESPONSE', message: 'the RPC answered something we could not read' };
}

/** Reads an address's native and token balances on one EVM network; a failed token is a warning, a failed network a warning and no entry. */
export async function readEvmBalances(
  client: PublicClient,
  network: Network,
  address: Address,
  tokens: TokenContract[],
  timeoutMs: number,
  decimalsCache: Map<string, number>,
): Promise<NetworkRead> {
  let native: bigint;
  try {
    native = await client.getBalance({ address });
  } catch (error) {
    return { entry: undefined, warnings: [{ ...rpcFailure(error, timeoutMs), network, address }] };
  }
  const warnings: BalanceWarning[] = [];
  const balances: TokenBalance[] = [];
  for (const token of tokens) {
    const contract = token.address as Address;
    try {
      const key = `${network}:${contract.toLowerCase()}`;
      let decimals = decimalsCache.get(key);
      if (decimals === undefined) {
        decimals = await client.readContract({ address: contract, abi: erc20Abi, functionName: 'decimals' });
        decimalsCache.set(key, decimals);
      }
      const raw = await client.readContract({ address: contract, abi: erc20Abi, functionName: 'balanceOf', args: [address] });
      balances.push({ symbol: token.symbol, balance: formatUnits(raw, decimals), contractAddress: token.address });
    } catch (error) {
      const failure = rpcFailure(error, timeoutMs);
      warnings.push({
        code: failure.code === 'MALFORMED_RESPONSE' ? 'TOKEN_UNAVAILABLE' : failure.code,
        message:
          failure.code === 'MALFORMED_RESPONSE' ? `${token.symbol} at ${token.address} could not be read on ${network}` : failure.message,
        network,
        address,
        token: token.symbol,
      });
    }
  }
  return {
    entry: { address, network, nativeBalance: formatUnits(native, 18), nativeSymbol: EVM_NATIVE_SYMBOL, tokens: balances },
    warnings,
  };
}
