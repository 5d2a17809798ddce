import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';

/** Base Sepolia's id: `local` runs anvil as base-sepolia (operator contract). */
export const ANVIL_CHAIN_ID = 84532;

export interface Anvil {
  rpcUrl: string;
  stop(): Promise<void>;
}

const anvilBinary = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@foundry-rs/anvil-linux-amd64/package.json')),
  'bin',
  'anvil',
);

/** Asks the OS for a free port (anvil has no `--port 0`). Another process may take it first: see the retry below. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function answersChainId(rpcUrl: string): Promise<boolean> {
  try {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    const body = (await response.json()) as { result?: string };
    return body.result === `0x${ANVIL_CHAIN_ID.toString(16)}`;
  } catch {
    return false;
  }
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function tryStart(): Promise<Anvil | undefined> {
  const port = await freePort();
  const rpcUrl = `http://127.0.0.1:${port}`;
  const child = spawn(anvilBinary, ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(ANVIL_CHAIN_ID), '--silent'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // Should the test worker die without its teardown, do not leave the node behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) return undefined; // most likely the port was taken meanwhile
    if (await answersChainId(rpcUrl)) return { rpcUrl, stop: () => stopProcess(child) };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stopProcess(child);
  throw new Error(`anvil did not answer on ${rpcUrl} within 15 s: ${stderr}`);
}

/** Starts a fresh anvil (one per test file) and resolves once it answers `eth_chainId`. */
export async function startAnvil(): Promise<Anvil> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const anvil = await tryStart();
    if (anvil) return anvil;
  }
  throw new Error(`anvil (${anvilBinary}) exited at start three times`);
}
