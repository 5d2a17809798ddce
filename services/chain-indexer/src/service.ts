import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { INDEXER_COMMANDS, type Network } from '@holdfast/contracts';
import type { ReadinessCheck, ServiceHandle } from '@holdfast/http-kit';
import type { Logger } from '@holdfast/logging';
import { serveCommand } from '@holdfast/messaging';
import { createFoundation } from '@holdfast/runtime';
import { type IndexerConfig, type NetworkSettings, SERVICE_NAME } from './config.js';
import * as tables from './db/schema.js';
import { SCHEMA_NAME } from './db/schema.js';
import { type ChainReader, createChainReader } from './modules/indexing/chain-reader.js';
import { createIndexerMetrics } from './modules/indexing/metrics.js';
import { newHeadsSubscription } from './modules/indexing/new-heads.js';
import { createIndexerRepository } from './modules/indexing/repository.js';
import { createNetworkIndexer, type NetworkIndexer } from './modules/indexing/service.js';
import { createContractRegistry } from './modules/registry/service.js';

/**
 * Assembles chain-indexer: its database, NATS, one follower per network that has an escrow contract
 * (ESCROW_CONTRACTS, or registered at run time with INDEXER_COMMANDS.followContract), a readiness
 * check per chain and per network, health and metrics.
 */
export async function createIndexerService(config: IndexerConfig, logger: Logger): Promise<ServiceHandle> {
  const followers: NetworkIndexer[] = [];
  const readers: ChainReader[] = [];
  // Every network of CHAIN_RPC_URLS: a network without a follower yet (no contract) is ready.
  const readiness: ReadinessCheck[] = config.rpcNetworks.map(({ network }) => ({
    name: `indexer:${network}`,
    check: async () => {
      const status = followers.find((f) => f.network === network)?.status();
      if (status && (status.state === 'halted' || status.state === 'failing')) throw new Error(`${status.state}: ${status.reason}`);
    },
  }));
  const foundation = await createFoundation({
    serviceName: SERVICE_NAME,
    schemaName: SCHEMA_NAME,
    tables,
    config,
    logger,
    chainRpcUrls: config.chainRpcUrls,
    readiness,
    http: { apiVersion: () => 'v1' },
  });
  const repository = createIndexerRepository(foundation.database.sql);
  const metrics = createIndexerMetrics(foundation.app.metrics);
  const owner = leaseOwner();
  let started = false;

  /** The follower of a network (created on first need: a contract in ESCROW_CONTRACTS or registered there). */
  function followerOf(settings: NetworkSettings): NetworkIndexer {
    const existing = followers.find((f) => f.network === settings.network);
    if (existing) return existing;
    const reader = createChainReader({ rpcUrl: settings.rpcUrl, chainId: settings.chainId, name: settings.network });
    readers.push(reader);
    const labels = { network: settings.network };
    const newHeads = settings.wsUrl
      ? newHeadsSubscription({
          url: settings.wsUrl,
          logger: logger.child({ network: settings.network }),
          // 20 polls (10 s at the default 500 ms) ahead of every announced head: the socket is dead.
          staleMs: Math.max(config.pollIntervalMs * 20, 1_000),
          onSubscribed: (subscribed) => metrics.headSubscription.set(labels, subscribed ? 1 : 0),
        })
      : undefined;
    metrics.headSubscription.set(labels, 0);
    const follower = createNetworkIndexer({
      ...settings,
      newHeads,
      registered: () => repository.registeredContracts(settings.network),
      reader,
      repository,
      bus: foundation.bus,
      logger,
      metrics,
      owner,
      isGone: leaseHolderIsGone,
      pollIntervalMs: config.pollIntervalMs,
      blockRange: config.blockRange,
      onChainReset: config.onChainReset,
    });
    followers.push(follower);
    if (started) void follower.start();
    return follower;
  }
  const settingsOf = (network: string) => config.rpcNetworks.find((n) => n.network === network);

  for (const settings of config.networks) followerOf(settings);
  const registry = createContractRegistry({
    repository,
    networks: config.rpcNetworks,
    follow: (network: Network) => {
      const settings = settingsOf(network);
      if (settings) followerOf(settings).notify();
    },
    logger,
  });
  let commands: ReturnType<typeof serveCommand>[] = [];
  return {
    app: foundation.app,
    startWorkers: async () => {
      started = true;
      // Networks whose only contracts were registered at run time are followed from the start too.
      for (const network of await repository.registeredNetworks()) {
        const settings = settingsOf(network);
        if (settings) followerOf(settings);
        else logger.error({ network }, 'contracts are registered on a network without an RPC in CHAIN_RPC_URLS: not indexed');
      }
      for (const settings of config.rpcNetworks.filter((n) => !followers.some((f) => f.network === n.network))) {
        logger.info({ network: settings.network }, 'no escrow contract for this network yet: followed once one is registered');
      }
      await Promise.all(followers.map((f) => f.start()));
      commands = [
        serveCommand(foundation.bus, INDEXER_COMMANDS.followContract, SERVICE_NAME, (request) => registry.follow(request)),
        serveCommand(foundation.bus, INDEXER_COMMANDS.lookupContract, SERVICE_NAME, (request) => registry.lookup(request)),
      ];
    },
    closers: [
      {
        name: 'commands',
        close: async () => {
          for (const c of commands) c.unsubscribe();
        },
      },
      {
        name: 'indexers',
        close: async () => {
          await Promise.all(followers.map((f) => f.stop()));
          await Promise.all(readers.map((r) => r.close()));
        },
      },
      ...foundation.baseClosers,
    ],
  };
}

/** When this process started (ms): tells it apart from an earlier process that had the same pid. */
const processStart = () => String(Math.round(performance.timeOrigin));

/** `host/pid/processStart/random`: names one service instance in the network leases. */
function leaseOwner(): string {
  return `${hostname()}/${process.pid}/${processStart()}/${randomBytes(4).toString('hex')}`;
}

/**
 * Whether a lease holder is certainly dead: an earlier process on this host whose pid no longer runs,
 * or an earlier process that had our pid (a restarted container is pid 1 again). Its lease is taken at
 * once instead of after it expires. A holder on another host is never presumed dead.
 */
export function leaseHolderIsGone(holder: string): boolean {
  const [host, pidText, started] = holder.split('/');
  if (host !== hostname()) return false;
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return started !== processStart();
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
