// What the head-lag benchmarks (chain-indexer.ts, escrow-lag.ts) share: issue 16's target, the bare
// baseline (a plain `eth_subscribe newHeads` client on the same anvil: the floor any follower of new
// heads can reach), and the layout of their sections.
import { sectionHead, writeBenchSection } from './load.ts';
import { benchmarksFile } from './options.ts';

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

/** The table row of the target: the p99 against it (the `budget` it is measured against) and against the bare head's p99. */
export function headLagTargetRow(what: string, p99: number, bareP99: number, budget: string): string {
  return `| target: ${what} | p99 ${p99} ms = ${(p99 / HEAD_LAG_TARGET_MS).toFixed(2)}× the ${budget}; ${(p99 / Math.max(1, bareP99)).toFixed(1)}× the bare head's p99 |`;
}

/**
 * A head-lag benchmark's section of docs/benchmarks.md: date, machine, command, the `about` lines
 * (setup, what is measured), the table of measures, the verdict and a note; printed, and with
 * `write` written.
 */
export function writeHeadLagSection(
  s: { name: string; title: string; startLoad: number[]; command: string; about: string[]; rows: string[]; verdict: string; note: string },
  write: boolean,
): void {
  const section = [
    ...sectionHead({ ...s, software: `Node ${process.versions.node}` }),
    ...s.about,
    '',
    '| measure | result |',
    '| --- | --- |',
    ...s.rows,
    '',
    `\`${s.verdict}\``,
    '',
    s.note,
    `<!-- ${s.name}:end -->`,
  ].join('\n');
  writeBenchSection(s.name, section, [s.verdict], write, benchmarksFile);
}
