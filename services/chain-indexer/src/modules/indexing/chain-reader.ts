import { Agent as HttpAgent, request as httpRequest, STATUS_CODES } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { holdfastEscrowAbi } from '@holdfast/contracts/escrow';
import { ESCROW_LIFECYCLE_EVENTS } from '@holdfast/escrow';
import {
  type Address,
  BlockNotFoundError,
  createPublicClient,
  defineChain,
  type Hex,
  http,
  type PublicClient,
  type RpcLog,
  type Transport,
  toEventSelector,
  toHex,
  webSocket,
} from 'viem';

export interface BlockHeader {
  number: bigint;
  hash: Hex;
  parentHash: Hex;
  /** Unix seconds. */
  timestamp: bigint;
}

export interface ChainLog {
  address: Address;
  topics: Hex[];
  data: Hex;
  blockNumber: bigint;
  blockHash: Hex;
  transactionHash: Hex;
  logIndex: number;
  /** Unix seconds, when the RPC includes it in the log (anvil, recent geth); else read from the block. */
  blockTimestamp?: bigint;
}

/** What the indexer asks of a chain; one per network. Nothing is cached: the chain moves under it. */
export interface ChainReader {
  chainId: () => Promise<number>;
  latest: () => Promise<BlockHeader>;
  /** The block at `number`, or undefined when the chain has no such block (yet, or any more). */
  block: (number: bigint) => Promise<BlockHeader | undefined>;
  /**
   * The block the RPC calls `safe` or `finalized`; undefined when it serves no such tag (an error
   * for it): the indexer then counts a documented depth instead (FINALITY_FALLBACK_DEPTHS).
   */
  tagged: (tag: 'safe' | 'finalized') => Promise<BlockHeader | undefined>;
  /** Several blocks at once (one JSON-RPC batch over HTTP). */
  blocks: (numbers: readonly bigint[]) => Promise<Map<bigint, BlockHeader | undefined>>;
  /** The escrow events of `addresses` in [from, to], in chain order. */
  escrowLogs: (addresses: readonly Address[], from: bigint, to: bigint) => Promise<ChainLog[]>;
  close: () => Promise<void>;
}

/**
 * topic0 of every escrow lifecycle event of the contract: other contracts' events at the same address
 * never match, nor does `TransferForwarded` (a `pay`: no escrow, read by payments from a submitted receipt).
 */
export const ESCROW_EVENT_TOPICS: Hex[] = holdfastEscrowAbi
  .filter((item) => item.type === 'event')
  .filter((item) => ESCROW_LIFECYCLE_EVENTS.includes(item.name))
  .map((item) => toEventSelector(item));

/**
 * viem's HTTP transport sends through this (Node's own HTTP client) instead of `fetch`. Each `fetch`
 * response is registered with a FinalizationRegistry and a WeakRef, which keep it, its request,
 * headers, streams and timing entry alive through every young-generation collection: an idle
 * indexer, polling the head twice a second, promoted about 48 KB/s into the old generation (RSS
 * climbing until the next full collection; docs/perf/idle-memory.md). The answer (a JSON-RPC body)
 * is read whole and handed to viem as text: viem reads `text()` when there is no `body` stream, and
 * applies its size limit to it. Not undici's `request`: loading the undici package and its agent
 * held the idle indexer at 106 MiB against 94 MiB with node:http (soak, 2026-11-25 13:20 UTC).
 */
function nodeHttpFetch(rpcUrl: URL): { fetchFn: typeof fetch; close: () => void } {
  const secure = rpcUrl.protocol === 'https:';
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const send = secure ? httpsRequest : httpRequest;
  const fetchFn = ((url: string | URL | Request, init: RequestInit = {}) =>
    new Promise<Response>((resolve, reject) => {
      const req = send(
        String(url),
        { agent, method: init.method ?? 'POST', headers: init.headers as Record<string, string>, signal: init.signal ?? undefined },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const headers = new Headers();
            for (const [name, value] of Object.entries(res.headers)) for (const one of [value ?? []].flat()) headers.append(name, one);
            const status = res.statusCode ?? 0;
            resolve({
              ok: status >= 200 && status < 300,
              status,
              statusText: res.statusMessage ?? STATUS_CODES[status] ?? '',
              headers,
              body: null,
              text: async () => text,
              json: async () => JSON.parse(text),
            } as unknown as Response);
          });
        },
      );
      req.on('error', reject);
      req.end(init.body as string | undefined);
    })) as typeof fetch;
  return { fetchFn, close: () => agent.destroy() };
}

export function createChainReader(options: { rpcUrl: string; chainId: number; name: string; timeoutMs?: number }): ChainReader {
  const timeout = options.timeoutMs ?? 10_000;
  const url = new URL(options.rpcUrl);
  const sender = url.protocol.startsWith('ws') ? undefined : nodeHttpFetch(url);
  const transport: Transport = !sender
    ? webSocket(options.rpcUrl, { timeout, retryCount: 2 })
    : // Batches the header requests of a range into one HTTP round trip.
      http(options.rpcUrl, { timeout, retryCount: 2, batch: { batchSize: 200 }, fetchFn: sender.fetchFn });
  const chain = defineChain({
    id: options.chainId,
    name: options.name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [options.rpcUrl] } },
  });
  // cacheTime 0: viem would otherwise answer a block number from its cache for a few seconds, and a
  // reorg check must see the chain as it is now.
  const client: PublicClient = createPublicClient({ chain, transport, cacheTime: 0 });

  const header = (block: { number: bigint | null; hash: Hex | null; parentHash: Hex; timestamp: bigint }): BlockHeader => {
    if (block.number === null || block.hash === null) throw new Error('the RPC returned a pending block');
    return { number: block.number, hash: block.hash, parentHash: block.parentHash, timestamp: block.timestamp };
  };

  async function block(number: bigint): Promise<BlockHeader | undefined> {
    try {
      return header(await client.getBlock({ blockNumber: number, includeTransactions: false }));
    } catch (error) {
      if (error instanceof BlockNotFoundError) return undefined;
      throw error;
    }
  }

  return {
    chainId: () => client.getChainId(),
    latest: async () => header(await client.getBlock({ blockTag: 'latest', includeTransactions: false })),
    block,
    tagged: async (tag) => {
      try {
        return header(await client.getBlock({ blockTag: tag, includeTransactions: false }));
      } catch {
        return undefined;
      }
    },
    blocks: async (numbers) => {
      const unique = [...new Set(numbers)];
      const found = await Promise.all(unique.map((n) => block(n)));
      return new Map(unique.map((n, i) => [n, found[i]]));
    },
    escrowLogs: async (addresses, from, to) => {
      const logs = (await client.request({
        method: 'eth_getLogs',
        params: [{ address: [...addresses], topics: [ESCROW_EVENT_TOPICS], fromBlock: toHex(from), toBlock: toHex(to) }],
      })) as RpcLog[];
      return logs
        .filter((log) => !log.removed)
        .map((log) => {
          if (log.blockNumber === null || log.blockHash === null || log.transactionHash === null || log.logIndex === null) {
            throw new Error('the RPC returned a pending log');
          }
          const blockTimestamp = (log as { blockTimestamp?: Hex | null }).blockTimestamp;
          return {
            address: log.address,
            topics: log.topics as Hex[],
            data: log.data,
            blockNumber: BigInt(log.blockNumber),
            blockHash: log.blockHash,
            transactionHash: log.transactionHash,
            logIndex: Number(log.logIndex),
            ...(blockTimestamp ? { blockTimestamp: BigInt(blockTimestamp) } : {}),
          };
        })
        .sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1));
    },
    close: async () => {
      // A websocket would keep the process alive; HTTP closes its connections.
      const value = (client.transport as { getRpcClient?: () => Promise<{ close: () => void }> }).getRpcClient;
      if (value) (await value()).close();
      sender?.close();
    },
  };
}
