import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { freePort } from '@holdfast/messaging/ports';

export interface Anvil {
  rpcUrl: string;
  chainId: number;
  /** JSON-RPC call to the node (evm_snapshot, evm_revert, anvil_mine...). */
  rpc: <T = unknown>(method: string, params?: unknown[]) => Promise<T>;
  stop: () => Promise<void>;
}

/** anvil's own deterministic dev accounts (mnemonic "test test ... junk"), funded with 10000 ETH each. */
export const ANVIL_ACCOUNTS = [
  {
    address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  },
  {
    address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    privateKey: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  },
  {
    address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    privateKey: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  },
  {
    address: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
    privateKey: '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  },
] as const;

/** The mnemonic behind ANVIL_ACCOUNTS (and anvil's other funded accounts). */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';

export function anvilBinary(): string {
  if (process.env.ANVIL_BIN) return process.env.ANVIL_BIN;
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@foundry-rs/anvil-linux-amd64/package.json')), 'bin', 'anvil');
}

function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

export interface AnvilOptions {
  chainId?: number;
  blockTimeSeconds?: number;
  /** Unix time of the genesis block (two chains started in the same second otherwise share it). */
  genesisTimestamp?: number;
  /**
   * Slots of an epoch (`--slots-in-an-epoch`, default 32): anvil answers the `safe` block tag with
   * the head minus one epoch and `finalized` with the head minus two.
   */
  slotsInAnEpoch?: number;
}

async function tryStart(chainId: number, options: AnvilOptions): Promise<Anvil | undefined> {
  const port = await freePort();
  const args = ['--port', String(port), '--host', '127.0.0.1', '--chain-id', String(chainId), '--silent'];
  if (options.blockTimeSeconds) args.push('--block-time', String(options.blockTimeSeconds));
  if (options.genesisTimestamp !== undefined) args.push('--timestamp', String(options.genesisTimestamp));
  if (options.slotsInAnEpoch !== undefined) args.push('--slots-in-an-epoch', String(options.slotsInAnEpoch));
  const child: ChildProcess = spawn(anvilBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
  // Should the test worker die without its teardown, do not leave the node behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const rpcUrl = `http://127.0.0.1:${port}`;
  let id = 0;
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    });
    const body = (await res.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  };
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      await rpc('eth_chainId');
      break;
    } catch (error) {
      // Exited at once: most likely another process took the port meanwhile; the caller retries.
      if (child.exitCode !== null) return undefined;
      if (Date.now() > deadline) {
        await stopChild(child, 'SIGKILL');
        throw new Error(`anvil did not answer on port ${port} within 15 s: ${stderr}`, { cause: error });
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { rpcUrl, chainId, rpc, stop: () => stopChild(child, 'SIGTERM') };
}

/**
 * Starts a private anvil for one test file (chain id 84532, base-sepolia's, unless told) on a free
 * port and waits until it answers. Mines a block per transaction unless `blockTimeSeconds` is set.
 */
export async function startAnvil(options: AnvilOptions = {}): Promise<Anvil> {
  const chainId = options.chainId ?? 84532;
  for (let attempt = 0; attempt < 3; attempt++) {
    const anvil = await tryStart(chainId, options);
    if (anvil) return anvil;
  }
  throw new Error(`anvil (${anvilBinary()}) exited at start three times`);
}
