import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { ReadinessCheck, ServiceHandle } from '@holdfast/http-kit';
import type { Logger } from '@holdfast/logging';
import { createFoundation } from '@holdfast/runtime';
import { type IndexerConfig, SERVICE_NAME } from './config.js';
import * as tables from './db/schema.js';
import { SCHEMA_NAME } from './db/schema.js';
import { type ChainReader, createChainReader } from './modules/indexing/chain-reader.js';
import { createIndexerMetrics } from './modules/indexing/metrics.js';
import { createIndexerRepository } from './modules/indexing/repository.js';
import { createNetworkIndexer, type NetworkIndexer } from './modules/indexing/service.js';

/**
 * Assembles chain-indexer: its database, NATS, one follower per network that has an escrow contract
 * (ESCROW_CONTRACTS), a readiness check per followed chain and per follower, health and metrics.
 */
export async function createIndexerService(config: IndexerConfig, logger: Logger): Promise<ServiceHandle> {
  const followers: NetworkIndexer[] = [];
  const readers: ChainReader[] = [];
  const readiness: ReadinessCheck[] = config.networks.map(({ network }) => ({
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
  for (const settings of config.networks) {
    const reader = createChainReader({ rpcUrl: settings.rpcUrl, chainId: settings.chainId, name: settings.network });
    readers.push(reader);
    followers.push(
      createNetworkIndexer({
        ...settings,
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
      }),
    );
  }
  for (const network of config.networksWithoutContracts) {
    logger.info({ network }, 'no escrow contract in ESCROW_CONTRACTS for this network: not indexed');
  }
  return {
    app: foundation.app,
    startWorkers: async () => {
      for (const follower of followers) follower.start();
    },
    closers: [
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
