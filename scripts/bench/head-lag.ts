// What the head-lag benchmarks (chain-indexer.ts, escrow-lag.ts) share: issue 16's target, the bare
// baseline (a plain `eth_subscribe newHeads` client on the same anvil: the floor any follower of new
// heads can reach).

/** Issue 16: a lock mined to `transaction.escrowed`, p99. */
export const HEAD_LAG_TARGET_MS = 250;

/** `PASS`/`MISS` for a p99 against the target, with the numbers. */
export function headLagVerdict(what: string, p99: number): string {
  return `${p99 <= HEAD_LAG_TARGET_MS ? 'PASS' : 'MISS'} ${what}: p99 ${p99} ms (target ≤ ${HEAD_LAG_TARGET_MS} ms)`;
}

/**
 * A bare new-heads client on the chain's websocket (anvil serves it on its HTTP port): when each
 * block number was announced to it (performance.now()).
 */
export async function bareHeadSubscriber(rpcUrl: string): Promise<{ announced: Map<bigint, number>; close: () => void }> {
  const announced = new Map<bigint, number>();
  const socket = new WebSocket(rpcUrl.replace(/^http/, 'ws'));
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => socket.send('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}'));
    socket.addEventListener('error', () => reject(new Error(`no websocket at ${rpcUrl}`)));
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; params?: { result?: { number?: string } } };
      if (message.id === 1) resolve();
      const number = message.params?.result?.number;
      if (number) announced.set(BigInt(number), performance.now());
    });
  });
  return { announced, close: () => socket.close() };
}
