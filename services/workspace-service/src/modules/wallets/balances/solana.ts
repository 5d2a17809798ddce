import type { BalanceEntry, BalanceWarning, Network, TokenBalance } from '@holdfast/contracts';
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { request } from 'undici';
import { SOLANA_NATIVE_SYMBOL } from '../common/chains.js';
import type { TokenContract } from '../common/settings.js';
import { unitsToDecimal } from '../providers/vendor-common.js';

/** One network's reading of one address: the entry (when the network answered) and what went wrong. */
export interface NetworkRead {
  entry: BalanceEntry | undefined;
  warnings: BalanceWarning[];
}

const LAMPORTS_DECIMALS = 9;

const BalanceResult = Type.Object({ context: Type.Object({ slot: Type.Integer() }), value: Type.Integer({ minimum: 0 }) });
const TokenAccounts = Type.Object({
  value: Type.Array(
    Type.Object({
      pubkey: Type.String(),
      account: Type.Object({
        data: Type.Object({
          parsed: Type.Object({
            info: Type.Object({
              mint: Type.String(),
              tokenAmount: Type.Object({
                amount: Type.String({ pattern: '^[0-9]{1,40}$' }),
                decimals: Type.Integer({ minimum: 0, maximum: 30 }),
              }),
            }),
          }),
        }),
      }),
    }),
  ),
});

class SolanaRpcError extends Error {
  constructor(
    readonly code: BalanceWarning['code'],
    message: string,
  ) {
    super(message);
  }
}

/**
 * Solana JSON-RPC over undici: `getBalance` and `getTokenAccountsByOwner` (jsonParsed). A deadline
 * on every call; answers checked against the documented shapes.
 */
export function createSolanaRpc(url: string, timeoutMs: number) {
  let id = 0;
  async function call<S extends TSchema>(method: string, params: unknown[], schema: S): Promise<{ result: Static<S>; raw: string }> {
    let text: string;
    let status: number;
    try {
      const res = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
        signal: AbortSignal.timeout(timeoutMs),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (error) {
      const e = error as { name?: string; code?: string };
      const timedOut = e?.name === 'TimeoutError' || e?.code === 'UND_ERR_HEADERS_TIMEOUT' || e?.code === 'UND_ERR_BODY_TIMEOUT';
      throw timedOut
        ? new SolanaRpcError('RPC_TIMEOUT', `the RPC did not answer within ${timeoutMs} ms`)
        : new SolanaRpcError('RPC_UNAVAILABLE', 'the RPC could not be reached');
    }
    if (status < 200 || status >= 300) throw new SolanaRpcError('RPC_UNAVAILABLE', `the RPC answered HTTP ${status}`);
    let body: { result?: unknown; error?: { message?: unknown } };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new SolanaRpcError('MALFORMED_RESPONSE', 'the RPC answered something that is not JSON-RPC');
    }
    if (body?.error) throw new SolanaRpcError('RPC_UNAVAILABLE', 'the RPC answered with an error');
    if (!Value.Check(schema, body?.result))
      throw new SolanaRpcError('MALFORMED_RESPONSE', `the RPC answered ${method} with an unexpected shape`);
    return { result: body.result as Static<S>, raw: text };
  }

  return {
    /** Lamports, exact even above 2^53 (read from the raw text, not the parsed number). */
    getBalance: async (address: string): Promise<bigint> => {
      const { result, raw } = await call('getBalance', [address, { commitment: 'confirmed' }], BalanceResult);
      const exact = /"value"\s*:\s*(\d+)/.exec(raw)?.[1];
      return BigInt(exact ?? result.value);
    },
    getTokenAccountsByOwner: async (owner: string, mint: string) =>
      (await call('getTokenAccountsByOwner', [owner, { mint }, { encoding: 'jsonParsed', commitment: 'confirmed' }], TokenAccounts)).result
        .value,
  };
}

/** Reads SOL and the configured SPL tokens of an address on one Solana network. */
export async function readSolanaBalances(
  rpc: ReturnType<typeof createSolanaRpc>,
  network: Network,
  address: string,
  tokens: TokenContract[],
): Promise<NetworkRead> {
  let lamports: bigint;
  try {
    lamports = await rpc.getBalance(address);
  } catch (error) {
    if (!(error instanceof SolanaRpcError)) throw error;
    return { entry: undefined, warnings: [{ code: error.code, message: error.message, network, address }] };
  }
  const warnings: BalanceWarning[] = [];
  const balances: TokenBalance[] = [];
  for (const token of tokens) {
    try {
      const accounts = await rpc.getTokenAccountsByOwner(address, token.address);
      let total = 0n;
      let decimals = 6;
      for (const a of accounts) {
        if (a.account.data.parsed.info.mint !== token.address) continue;
        total += BigInt(a.account.data.parsed.info.tokenAmount.amount);
        decimals = a.account.data.parsed.info.tokenAmount.decimals;
      }
      balances.push({ symbol: token.symbol, balance: unitsToDecimal(total, decimals), contractAddress: token.address });
    } catch (error) {
      if (!(error instanceof SolanaRpcError)) throw error;
      warnings.push({
        code: error.code === 'MALFORMED_RESPONSE' ? 'TOKEN_UNAVAILABLE' : error.code,
        message: error.code === 'MALFORMED_RESPONSE' ? `${token.symbol} (${token.address}) could not be read on ${network}` : error.message,
        network,
        address,
        token: token.symbol,
      });
    }
  }
  return {
    entry: {
      address,
      network,
      nativeBalance: unitsToDecimal(lamports, LAMPORTS_DECIMALS),
      nativeSymbol: SOLANA_NATIVE_SYMBOL,
      tokens: balances,
    },
    warnings,
  };
}
