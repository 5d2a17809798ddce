// What the chain benches (checkout.ts, escrow-lag.ts) stand on: an ephemeral anvil with the local
// contracts, a fresh database, their own NATS subject prefix, and payments-service with the
// chain-indexer migrated and started as ./scripts/start does; `close` removes all of it.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { evmChain } from '@holdfast/escrow';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { createPublicClient, http, type PublicClient } from 'viem';
import { ensureChain, LOCAL_CHAIN_ID, LOCAL_NETWORK } from '../lib/stack/chain.ts';
import { deployLocalContracts, type LocalDeployment } from '../lib/stack/contracts.ts';
import { deletePrefixedStreams } from '../lib/stack/nats.ts';
import { portFor } from '../lib/stack/ports.ts';
import { services, waitAllReady } from '../lib/stack/processes.ts';
import { createPlatform } from '../lib/stack/smoke-payment.ts';
import { benchDatabase, benchServiceEnv, migrateAndStart, stopChildren } from './load.ts';
import { databaseUrl, natsUrl, root } from './options.ts';

export interface ChainBenchWorld {
  rpcUrl: string;
  deployment: LocalDeployment;
  publicClient: PublicClient;
  gasPrice: bigint;
  /** The bench's own connection, for subscribing under `prefix`. */
  nc: NatsConnection;
  prefix: string;
  /**
   * Starts payments-service and chain-indexer (with `env` over the bench defaults) and creates a
   * platform: its base URL, its bearer header and each process's pid.
   */
  startServices: (
    platformName: string,
    env?: NodeJS.ProcessEnv,
  ) => Promise<{ base: string; bearer: { authorization: string }; pids: Record<string, number | undefined> }>;
  close: () => Promise<void>;
}

export async function openChainBenchWorld(): Promise<ChainBenchWorld> {
  const chain = await ensureChain(root, undefined, { ephemeral: true });
  const rpcUrl = chain.localRpcUrl!;
  const database = await benchDatabase(databaseUrl);
  const prefix = `bench${randomBytes(3).toString('hex')}.`;
  const nc = await connect({ servers: natsUrl.split(','), name: 'holdfast-bench' });
  const children: ChildProcess[] = [];
  const close = async () => {
    await stopChildren(children);
    await nc.close();
    await chain.started?.stop();
    await deletePrefixedStreams(natsUrl, prefix).catch(() => undefined);
    await database.drop(false);
  };
  try {
    const deployment = await deployLocalContracts({ rpcUrl, network: LOCAL_NETWORK, chainId: LOCAL_CHAIN_ID });
    const viemChain = evmChain({ id: LOCAL_CHAIN_ID, name: 'anvil', rpcUrl });
    const publicClient = createPublicClient({ chain: viemChain, transport: http(rpcUrl), cacheTime: 0, pollingInterval: 20 });
    const gasPrice = await publicClient.getGasPrice();
    const startServices: ChainBenchWorld['startServices'] = async (platformName, extraEnv = {}) => {
      const list = services(root).filter((s) => s.name === 'payments-service' || s.name === 'chain-indexer');
      const ports = Object.fromEntries(await Promise.all(list.map(async (s) => [s.name, await portFor(0)] as const)));
      const adminKey = `hf_test_${randomBytes(32).toString('base64url')}`;
      const env: NodeJS.ProcessEnv = {
        ...benchServiceEnv(database.url, natsUrl, prefix),
        CHAIN_RPC_URLS: chain.rpcUrls,
        ...deployment.env,
        PAYMENTS_BOOTSTRAP_API_KEY: adminKey,
        ...extraEnv,
        ...Object.fromEntries(list.map((s) => [s.portEnv, String(ports[s.name])])),
      };
      const cwd = mkdtempSync(join(os.tmpdir(), 'holdfast-bench-'));
      for (const service of list) children.push(await migrateAndStart(service.dir, { env, cwd, stdout: 'ignore' }));
      await waitAllReady(list, ports, 60_000);
      const base = `http://127.0.0.1:${ports['payments-service']}`;
      const bearer = { authorization: `Bearer ${(await createPlatform(base, adminKey, platformName)).accessToken}` };
      const pids = Object.fromEntries(list.map((s, i) => [s.name, children[i]?.pid]));
      return { base, bearer, pids };
    };
    return { rpcUrl, deployment, publicClient: publicClient as PublicClient, gasPrice, nc, prefix, startServices, close };
  } catch (error) {
    await close();
    throw error;
  }
}
