import { type StandIn, startStandIn } from '@holdfast/test-fixtures';

export type SolanaMode = 'ok' | 'hang' | 'malformed' | 'rpc_error' | 'bad_shape';

/**
 * A stand-in Solana JSON-RPC node answering getBalance and getTokenAccountsByOwner (jsonParsed) as
 * the Solana RPC documents them, from balances the test sets.
 */
export async function startSolanaRpc() {
  const lamports = new Map<string, bigint>();
  const tokenAccounts = new Map<string, { mint: string; amount: string; decimals: number }[]>();
  const self = { mode: 'ok' as SolanaMode };
  const standIn: StandIn = await startStandIn((req) => {
    const body = req.json as { id: number; method: string; params: unknown[] };
    if (self.mode === 'hang') return { status: 200, hang: true };
    if (self.mode === 'malformed') return { status: 200, body: 'not json at all' };
    if (self.mode === 'rpc_error')
      return { status: 200, body: { jsonrpc: '2.0', id: body.id, error: { code: -32005, message: 'node is behind' } } };
    const context = { apiVersion: '2.0.18', slot: 341197053 };
    if (body.method === 'getBalance') {
      const owner = body.params[0] as string;
      const value = (lamports.get(owner) ?? 0n).toString();
      if (self.mode === 'bad_shape') return { status: 200, body: { jsonrpc: '2.0', id: body.id, result: { value: 'lots' } } };
      // Written by hand so that values above 2^53 travel exactly, as a node sends them.
      return { status: 200, body: `{"jsonrpc":"2.0","id":${body.id},"result":{"context":${JSON.stringify(context)},"value":${value}}}` };
    }
    if (body.method === 'getTokenAccountsByOwner') {
      const owner = body.params[0] as string;
      const { mint } = body.params[1] as { mint: string };
      const value = (tokenAccounts.get(owner) ?? [])
        .filter((t) => t.mint === mint)
        .map((t, i) => ({
          pubkey: `TokenAcct${i}${owner.slice(0, 8)}`,
          account: {
            data: {
              parsed: {
                info: {
                  isNative: false,
                  mint: t.mint,
                  owner,
                  state: 'initialized',
                  tokenAmount: {
                    amount: t.amount,
                    decimals: t.decimals,
                    uiAmount: Number(t.amount) / 10 ** t.decimals,
                    uiAmountString: '',
                  },
                },
                type: 'account',
              },
              program: 'spl-token',
              space: 165,
            },
            executable: false,
            lamports: 2039280,
            owner: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
            rentEpoch: 361,
            space: 165,
          },
        }));
      return { status: 200, body: { jsonrpc: '2.0', id: body.id, result: { context, value } } };
    }
    return { status: 200, body: { jsonrpc: '2.0', id: body.id, error: { code: -32601, message: 'Method not found' } } };
  });
  return Object.assign(self, standIn, { lamports, tokenAccounts });
}
