import { spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { say } from './log.ts';
import { portFor, waitFor } from './ports.ts';
import type { Started } from './postgres.ts';

export const LOCAL_NETWORK = 'base-sepolia';
export const LOCAL_CHAIN_ID = 84532;

async function chainId(url: string): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    signal: AbortSignal.timeout(2000),
  });
  const body = (await res.json()) as { result: string };
  return Number.parseInt(body.result, 16);
}

/**
 * The chains of CHAIN_RPC_URLS when given; otherwise anvil (from the npm package) standing in for
 * base-sepolia, its state kept in .holdfast/anvil-state.json across runs.
 */
export async function ensureChain(
  root: string,
  requested: string | undefined,
  options: { ephemeral?: boolean } = {},
): Promise<{ rpcUrls: string; localRpcUrl?: string; started?: Started }> {
  if (requested) {
    say(
      `Chain: using CHAIN_RPC_URLS (${requested
        .split(',')
        .map((p) => p.split('=')[0])
        .join(', ')})`,
    );
    return { rpcUrls: requested };
  }
  const require = createRequire(import.meta.url);
  const binary = process.env.ANVIL_BIN ?? join(dirname(require.resolve('@foundry-rs/anvil-linux-amd64/package.json')), 'bin', 'anvil');
  const port = await portFor(options.ephemeral ? 0 : 8545);
  mkdirSync(join(root, '.holdfast'), { recursive: true });
  const log = openSync(join(root, '.holdfast', 'anvil.log'), 'a');
  const child = spawn(
    binary,
    [
      ...['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(LOCAL_CHAIN_ID)],
      ...(options.ephemeral ? [] : ['--state', join(root, '.holdfast', 'anvil-state.json'), '--state-interval', '10']),
    ],
    { stdio: ['ignore', log, log], detached: true },
  );
  process.once('exit', () => child.kill('SIGKILL'));
  const url = `http://127.0.0.1:${port}`;
  await waitFor('anvil', async () => (await chainId(url)) === LOCAL_CHAIN_ID, 15_000);
  say(`Chain: anvil as ${LOCAL_NETWORK} (chain id ${LOCAL_CHAIN_ID}) on ${url}`);
  return {
    rpcUrls: `${LOCAL_NETWORK}=${url}`,
    localRpcUrl: url,
    started: {
      stop: () =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    },
  };
}
