import type { EscrowContract } from '@holdfast/config';
import {
  ChainEvent,
  chainEventId,
  chainMessageId,
  chainSubject,
  FINALITY_LEVELS,
  type FinalityLevel,
  type Network,
} from '@holdfast/contracts';
import { type DecodedEvent, decodeEscrowLog, UndecodableLogError } from '@holdfast/escrow';
import type { Logger } from '@holdfast/logging';
import { type Bus, publishChecked } from '@holdfast/messaging';
import { createPollingWorker } from '@holdfast/runtime';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { type Address, getAddress } from 'viem';
import type { BlockHeader, ChainLog, ChainReader } from './chain-reader.js';
import type { IndexerMetrics } from './metrics.js';
import type { NewHeads } from './new-heads.js';
import { type Cursor, type IndexerRepository, LeaseLostError, type NewEvent, type StoredBlock, type StoredEvent } from './repository.js';

/** How many recent block hashes are kept per network to find the common ancestor of a reorg. */
export const RECENT_BLOCKS_KEPT = 1024n;
/** The parent of block 0. */
const ZERO_HASH = `0x${'0'.repeat(64)}`;

export type IndexerState = 'starting' | 'standby' | 'following' | 'failing' | 'halted' | 'stopped';

export interface NetworkStatus {
  network: Network;
  state: IndexerState;
  /** Why it is failing or halted. */
  reason?: string;
  cursor?: bigint;
  head?: bigint;
}

export interface NetworkIndexerOptions {
  network: Network;
  chainId: number;
  /** The network's contracts from ESCROW_CONTRACTS (may be empty when all are registered at run time). */
  contracts: EscrowContract[];
  /** The contracts registered at run time for the network (INDEXER_COMMANDS.followContract), read again regularly. */
  registered?: () => Promise<EscrowContract[]>;
  /** How often the registered contracts are read again without a notice (default 2 s). */
  registryRefreshMs?: number;
  confirmations: number;
  /** The depths counted for `safe` and `finalized` when the RPC serves no such block tag (FINALITY_FALLBACK_DEPTHS). */
  finalityDepths: { safe: number; finalized: number };
  reader: ChainReader;
  repository: IndexerRepository;
  bus: Bus;
  logger: Logger;
  metrics: IndexerMetrics;
  /** Identifies this instance in the lease. */
  owner: string;
  /** Whether the holder of a lease is known to be dead (its lease is then taken at once). */
  isGone?: (holder: string) => boolean;
  /** New heads by subscription (eth_subscribe): each wakes the follower; without it, it only polls. */
  newHeads?: NewHeads;
  /** How often the head is asked for when caught up, subscribed or not (a missed head waits at most this). */
  pollIntervalMs: number;
  blockRange: number;
  /** What to do when the chain under the cursor is not the one it was read from (docs/chain.md). */
  onChainReset: 'reindex' | 'halt';
}

export interface NetworkIndexer {
  network: Network;
  start: () => Promise<void>;
  /** A contract was registered for this network: pick it up at the next step (and wake up for it). */
  notify: () => void;
  /** Finishes the step in progress, releases the lease, stops. */
  stop: () => Promise<void>;
  status: () => NetworkStatus;
}

/** The chain moved while a range was being read: read it again. */
class ChainMovedError extends Error {
  override readonly name = 'ChainMovedError';
}

/** The network is halted (INDEXER_ON_CHAIN_RESET=halt) until the chain agrees with what was published. */
class HaltedError extends Error {
  override readonly name = 'HaltedError';
}

const checkEvent = TypeCompiler.Compile(ChainEvent);

/** Where the chain stands for levels: the head and the newest `safe` and `finalized` blocks (docs/chain.md, levels). */
export interface LevelMarks {
  latest: bigint;
  safe: bigint;
  finalized: bigint;
}

/** The level of a block under `marks`, and the confirmations on top of it. */
export function levelOf(blockNumber: bigint, marks: LevelMarks, confirmations: bigint): { finality: FinalityLevel; confirmations: number } {
  const depth = marks.latest - blockNumber;
  const finality: FinalityLevel =
    blockNumber <= marks.finalized ? 'finalized' : blockNumber <= marks.safe ? 'safe' : depth >= confirmations ? 'confirmed' : 'seen';
  return { finality, confirmations: Number(depth < 0n ? 0n : depth) };
}

const minOf = (a: bigint, b: bigint) => (a < b ? a : b);
const maxOf = (a: bigint, b: bigint) => (a > b ? a : b);
const ascending = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Follows one network: backfills from the escrow contracts' deployment block, then the head minus the
 * confirmations. Each range's events are published to JetStream and acknowledged before the cursor (with
 * the events and the block hashes) is committed, so a crash re-reads at most one range, whose re-publish
 * JetStream drops by message id. A block whose parent is not the stored hash rolls the cursor back to the
 * common ancestor after publishing a correction for each event of the dropped blocks.
 */
export function createNetworkIndexer(options: NetworkIndexerOptions): NetworkIndexer {
  const { network, chainId, reader, repository, bus, metrics, owner } = options;
  const log = options.logger.child({ component: 'indexer', network });
  const labels = { network };
  /** The contracts followed now, by lower-case address (those of ESCROW_CONTRACTS and the registered ones picked up). */
  const followed = new Map<string, EscrowContract>();
  for (const c of options.contracts) followed.set(c.address.toLowerCase(), c);
  const addresses = (): Address[] => [...followed.keys()].map((a) => getAddress(a));
  const registryRefreshMs = options.registryRefreshMs ?? 2_000;
  /** When the registered contracts were last read; 0 forces a read at the next step. */
  let registryReadAt = 0;
  const confirmations = BigInt(options.confirmations);
  const finalityDepths = options.finalityDepths;
  /** Whether the RPC's safe/finalized tags failed last time (logged once per change). */
  let tagsMissing = false;
  const newHeads = options.newHeads;
  const blockRange = BigInt(options.blockRange);

  let state: IndexerState = 'starting';
  let reason: string | undefined;
  let cursor: Cursor | undefined;
  let head: bigint | undefined;
  let leader = false;
  /** The latest block seen when the tip was last verified: until it changes there is nothing to check. */
  let verifiedHead: BlockHeader | undefined;
  let consecutiveFailures = 0;

  function setState(next: IndexerState, why?: string): void {
    state = next;
    reason = why;
  }

  // ---- publishing ----------------------------------------------------------------------------

  async function publish(events: ChainEvent[]): Promise<void> {
    // Sent in order on one connection, acknowledged in any order; any failure fails the whole batch,
    // which is then published again (JetStream drops what it already holds).
    for (let i = 0; i < events.length; i += 1000) {
      const acks = await Promise.all(
        events
          .slice(i, i + 1000)
          .map((event) => publishChecked(bus, chainSubject(network, event.kind), ChainEvent, event, chainMessageId(event))),
      );
      const duplicates = acks.filter((a) => a.duplicate).length;
      if (duplicates > 0) metrics.duplicates.inc(labels, duplicates);
    }
  }

  /**
   * The head and the RPC's `safe` and `finalized` blocks; where it serves no tag, the fallback
   * depths below the head. Never above the head (a lagging node's tag) and finalized never above safe.
   */
  async function marksAt(latest: BlockHeader): Promise<LevelMarks> {
    const [safe, finalized] = await Promise.all([reader.tagged('safe'), reader.tagged('finalized')]);
    const missing = !safe || !finalized;
    if (missing !== tagsMissing) {
      tagsMissing = missing;
      if (missing) log.warn(finalityDepths, 'the RPC serves no safe/finalized block tag: counting the fallback depths instead');
    }
    const safeAt = safe ? safe.number : latest.number - BigInt(finalityDepths.safe);
    const finalizedAt = finalized ? finalized.number : latest.number - BigInt(finalityDepths.finalized);
    const safeCapped = minOf(safeAt, latest.number);
    return { latest: latest.number, safe: safeCapped, finalized: minOf(finalizedAt, safeCapped) };
  }

  /**
   * The level an event is first published at: `seen`, or `confirmed` even when its block is deeper
   * already (a backfill): every confirmed event has its message under the plain event id, as before
   * levels, and the higher level follows from raiseLevels once the indexer caught up.
   */
  function firstLevelOf(blockNumber: bigint, marks: LevelMarks): { finality: FinalityLevel; confirmations: number } {
    const level = levelOf(blockNumber, marks, confirmations);
    return level.finality === 'seen' ? level : { ...level, finality: 'confirmed' };
  }

  function withIds(decoded: DecodedEvent[], known: StoredEvent[], marks: LevelMarks): NewEvent[] {
    const byKey = new Map<string, StoredEvent[]>();
    for (const e of known) byKey.set(e.logKey, [...(byKey.get(e.logKey) ?? []), e]);
    const fresh: NewEvent[] = [];
    for (const d of decoded) {
      const logKey = chainEventId(chainId, d.transactionHash, d.logIndex);
      const earlier = byKey.get(logKey) ?? [];
      const live = earlier.find((e) => !e.removed);
      if (live) {
        // Published and committed before (a range read again after a rollback kept a still-canonical block).
        if (live.blockHash === d.blockHash) continue;
        throw new Error(`event ${live.eventId} is live in block ${live.blockHash} but the chain has it in ${d.blockHash}`);
      }
      const occurrence = earlier.reduce((max, e) => Math.max(max, e.occurrence), 0) + 1;
      const payload = {
        ...d,
        eventId: chainEventId(chainId, d.transactionHash, d.logIndex, occurrence),
        removed: false,
        ...firstLevelOf(BigInt(d.blockNumber), marks),
      } as ChainEvent;
      fresh.push({ eventId: payload.eventId, logKey, occurrence, payload });
    }
    return fresh;
  }

  function decodeAll(logs: ChainLog[], headers: Map<bigint, BlockHeader | undefined>): DecodedEvent[] {
    const decoded: DecodedEvent[] = [];
    for (const entry of logs) {
      const block = headers.get(entry.blockNumber);
      if (block && block.hash !== entry.blockHash) throw new ChainMovedError(`block ${entry.blockNumber} changed while it was read`);
      const timestamp = entry.blockTimestamp ?? block?.timestamp;
      if (timestamp === undefined) throw new ChainMovedError(`block ${entry.blockNumber} is no longer on the chain`);
      try {
        const event = decodeEscrowLog(entry, timestamp, network, chainId);
        const probe = { ...event, eventId: chainEventId(chainId, event.transactionHash, event.logIndex), removed: false };
        if (!checkEvent.Check(probe)) {
          const problem = [...checkEvent.Errors(probe)][0];
          throw new UndecodableLogError(`decoded event breaks the CHAIN contract at ${problem?.path}: ${problem?.message}`);
        }
        decoded.push(event);
      } catch (error) {
        if (!(error instanceof UndecodableLogError)) throw error;
        // Never published: an event we cannot read is not invented into something else.
        metrics.undecodable.inc(labels);
        log.error(
          { err: error, address: entry.address, transactionHash: entry.transactionHash, logIndex: entry.logIndex },
          'log at an escrow address skipped: not an escrow event',
        );
      }
    }
    return decoded;
  }

  // ---- reading ranges ------------------------------------------------------------------------

  /** Reads [from, to], publishes its new events and commits the cursor at `to`. */
  async function readRange(current: Cursor, from: bigint, to: bigint, marks: LevelMarks): Promise<void> {
    const logs = await reader.escrowLogs(addresses(), from, to);
    const windowStart = marks.latest - RECENT_BLOCKS_KEPT + 1n;
    // Headers: the range's ends, the blocks of logs that come without their block's time, and near the
    // head every block (kept, so that a reorg finds its common ancestor).
    const wanted = new Set<bigint>([from, to, ...logs.filter((l) => l.blockTimestamp === undefined).map((l) => l.blockNumber)]);
    for (let n = maxOf(from, windowStart); n <= to; n++) wanted.add(n);
    const headers = await reader.blocks([...wanted].sort(ascending));
    const first = headers.get(from);
    const last = headers.get(to);
    if (!first || !last) throw new ChainMovedError(`blocks ${from}..${to} are no longer all on the chain`);
    if (current.blockNumber >= 0n && first.parentHash !== current.blockHash) {
      log.warn(
        { block: String(from), parentHash: first.parentHash, ours: current.blockHash },
        'parent hash differs from the cursor: reorg',
      );
      await handleDivergence(current);
      return;
    }
    const kept: StoredBlock[] = [];
    let previous: BlockHeader | undefined;
    for (const n of [...headers.keys()].sort(ascending)) {
      const header = headers.get(n);
      if (!header) throw new ChainMovedError(`block ${n} disappeared while the range was read`);
      if (previous && previous.number + 1n === n && header.parentHash !== previous.hash) {
        throw new ChainMovedError(`block ${n} does not follow block ${previous.number}`);
      }
      previous = header;
      if (n >= windowStart || n === to) kept.push({ blockNumber: n, blockHash: header.hash, parentHash: header.parentHash });
    }
    const decoded = decodeAll(logs, headers);
    const fresh = withIds(
      decoded,
      await repository.eventsOfLogs(decoded.map((d) => chainEventId(chainId, d.transactionHash, d.logIndex))),
      marks,
    );
    await publish(fresh.map((e) => e.payload));
    const next = { blockNumber: to, blockHash: last.hash, parentHash: last.parentHash };
    await repository.commitRange(owner, { network, events: fresh, blocks: kept, cursor: next, pruneBelow: to - RECENT_BLOCKS_KEPT });
    cursor = { ...current, blockNumber: to, blockHash: last.hash };
    for (const e of fresh) metrics.published.inc({ network, kind: e.payload.kind });
    metrics.blocksRead.inc(labels, Number(to - from + 1n));
    metrics.cursor.set(labels, Number(to));
    if (fresh.length > 0) log.debug({ from: String(from), to: String(to), events: fresh.length }, 'range published');
  }

  /** A contract new to this network's table, deployed behind the cursor: its events up to the cursor. */
  async function readContractHistory(contract: EscrowContract, upTo: bigint): Promise<void> {
    let marks: LevelMarks | undefined;
    const address = getAddress(contract.address);
    if (contract.deploymentBlock > upTo) {
      // Deployed after the cursor: the ranges still to read cover all of it.
      await repository.commitContractHistory(owner, { network, events: [], contract });
      return;
    }
    log.info({ address, from: String(contract.deploymentBlock), to: String(upTo) }, 'reading the history of a newly followed contract');
    for (let from = contract.deploymentBlock; from <= upTo; from += blockRange) {
      const to = minOf(from + blockRange - 1n, upTo);
      const logs = await reader.escrowLogs([address], from, to);
      const headers = await reader.blocks(logs.filter((l) => l.blockTimestamp === undefined).map((l) => l.blockNumber));
      const decoded = decodeAll(logs, headers);
      marks ??= await marksAt(await reader.latest());
      const fresh = withIds(
        decoded,
        await repository.eventsOfLogs(decoded.map((d) => chainEventId(chainId, d.transactionHash, d.logIndex))),
        marks,
      );
      await publish(fresh.map((e) => e.payload));
      await repository.commitContractHistory(owner, { network, events: fresh, contract: to === upTo ? contract : undefined });
      for (const e of fresh) metrics.published.inc({ network, kind: e.payload.kind });
    }
  }

  // ---- reorgs and resets ---------------------------------------------------------------------

  async function publishCorrections(events: StoredEvent[], why: 'reorg' | 'chain_reset'): Promise<void> {
    await publish(events.map((e) => ({ ...e.payload, removed: true, removedReason: why })));
    if (events.length > 0) metrics.corrections.inc({ network, reason: why }, events.length);
  }

  /**
   * The chain no longer holds the cursor's block (or a block we read): find the newest kept block the
   * chain still has, correct every published event above it whose block is gone, and go back there.
   */
  async function handleDivergence(current: Cursor): Promise<void> {
    const kept = await repository.recentBlocks(network, current.blockNumber);
    let ancestor: StoredBlock | undefined;
    for (let i = 0; i < kept.length && !ancestor; i += 100) {
      const slice = kept.slice(i, i + 100);
      const onChain = await reader.blocks(slice.map((b) => b.blockNumber));
      ancestor = slice.find((b) => onChain.get(b.blockNumber)?.hash === b.blockHash);
    }
    if (!ancestor) {
      const genesis = await reader.block(0n);
      const why =
        genesis?.hash !== current.genesisHash
          ? `the chain was reset: its genesis block is ${genesis?.hash ?? 'missing'}, the cursor's chain had ${current.genesisHash}`
          : `no block of the last ${kept.length} kept is on the chain any more (a reorg deeper than the indexer keeps)`;
      await onChainReset(why);
      return;
    }
    const above = await repository.liveEventsAbove(network, ancestor.blockNumber);
    const onChain = await reader.blocks([...new Set(above.map((e) => e.blockNumber))]);
    const gone = above.filter((e) => onChain.get(e.blockNumber)?.hash !== e.blockHash);
    await publishCorrections(gone, 'reorg');
    await repository.commitRollback(owner, { network, ancestor, removedEventIds: gone.map((e) => e.eventId) });
    metrics.reorgs.inc(labels);
    metrics.cursor.set(labels, Number(ancestor.blockNumber));
    log.warn(
      { from: String(current.blockNumber), to: String(ancestor.blockNumber), corrected: gone.length },
      'reorg: cursor rolled back to the common ancestor; corrections published',
    );
    cursor = { ...current, blockNumber: ancestor.blockNumber, blockHash: ancestor.blockHash };
    verifiedHead = undefined;
  }

  async function onChainReset(why: string): Promise<void> {
    if (options.onChainReset === 'halt') {
      setState('halted', `${why}; nothing is published until the chain agrees with the cursor again (INDEXER_ON_CHAIN_RESET=halt)`);
      throw new HaltedError(reason);
    }
    const live = await repository.liveEventsAbove(network, -1n);
    log.warn(
      { reason: why, corrected: live.length },
      'chain reset: correcting every published event and indexing again from the deployment blocks',
    );
    await publishCorrections(live, 'chain_reset');
    await repository.commitReset(owner, { network, removedEventIds: live.map((e) => e.eventId) });
    cursor = undefined;
    verifiedHead = undefined;
  }

  // ---- the worker's pass ------------------------------------------------------------------------------

  /** Every contract to follow: ESCROW_CONTRACTS and the registered ones (by lower-case address, the first entry winning). */
  async function allContracts(): Promise<EscrowContract[]> {
    const registered = options.registered ? await options.registered() : [];
    registryReadAt = Date.now();
    const all = new Map<string, EscrowContract>();
    for (const c of [...options.contracts, ...registered]) {
      const key = c.address.toLowerCase();
      if (!all.has(key)) all.set(key, { ...c, address: key as EscrowContract['address'] });
    }
    return [...all.values()];
  }

  /**
   * Contracts registered since the last look: their past events (up to the cursor) are published
   * first, then they are followed with the others from the next range on.
   */
  async function pickUpRegistered(current: Cursor): Promise<void> {
    if (!options.registered || Date.now() - registryReadAt < registryRefreshMs) return;
    for (const contract of await allContracts()) {
      if (followed.has(contract.address)) continue;
      await readContractHistory(contract, current.blockNumber);
      followed.set(contract.address, contract);
      log.info(
        { address: getAddress(contract.address), deploymentBlock: String(contract.deploymentBlock) },
        'following a registered contract',
      );
    }
  }

  /** Sets the cursor: the stored one (after checking it belongs to this chain) or the block before the first deployment. */
  async function prepare(): Promise<Cursor> {
    const actualChainId = await reader.chainId();
    if (actualChainId !== chainId) throw new Error(`the RPC of ${network} serves chain id ${actualChainId}, not ${chainId}`);
    const genesis = await reader.block(0n);
    if (!genesis) throw new Error('the RPC has no block 0');
    const stored = await repository.cursor(network);
    if (stored) {
      if (stored.genesisHash !== null && stored.genesisHash !== genesis.hash) {
        await onChainReset(`the chain was reset: its genesis block is ${genesis.hash}, the cursor's chain had ${stored.genesisHash}`);
        return prepare();
      }
      const contracts = await allContracts();
      const known = new Set((await repository.knownContracts(network)).map((a) => a.toLowerCase()));
      for (const contract of contracts.filter((c) => !known.has(c.address))) {
        await readContractHistory(contract, stored.blockNumber);
      }
      for (const contract of contracts) followed.set(contract.address, contract);
      return stored;
    }
    const contracts = await allContracts();
    if (contracts.length === 0) throw new Error(`no escrow contract to follow on ${network}`);
    for (const contract of contracts) followed.set(contract.address, contract);
    const firstBlock = contracts.map((c) => c.deploymentBlock).reduce(minOf);
    const before = firstBlock - 1n;
    const beforeBlock =
      before >= 0n ? await reader.block(before) : { number: -1n, hash: ZERO_HASH as `0x${string}`, parentHash: ZERO_HASH };
    if (!beforeBlock) throw new Error(`the chain has no block ${before} yet: is ESCROW_CONTRACTS's deployment block ${firstBlock} right?`);
    const start = { blockNumber: before, blockHash: beforeBlock.hash, parentHash: beforeBlock.parentHash };
    await repository.start(owner, { network, chainId, cursor: start, genesisHash: genesis.hash, contracts });
    log.info({ from: String(firstBlock), contracts: addresses() }, 'indexing from the deployment block');
    return { blockNumber: before, blockHash: start.blockHash, genesisHash: genesis.hash };
  }

  /** One step: read the next range, or check the tip when there is none. Returns whether there may be more right away. */
  async function step(): Promise<boolean> {
    if (!cursor) cursor = await prepare();
    await pickUpRegistered(cursor);
    const latest = await reader.latest();
    newHeads?.polled(latest.number);
    head = latest.number;
    metrics.head.set(labels, Number(latest.number));
    // Up to the head: an event is published when it is seen, and again as its level rises (raiseLevels).
    const target = latest.number;
    if (cursor.blockNumber < target) {
      const to = minOf(cursor.blockNumber + blockRange, target);
      await readRange(cursor, cursor.blockNumber + 1n, to, await marksAt(latest));
      return true;
    }
    // Nothing new to read. A reorg may still have replaced blocks at or below the cursor (or the chain
    // may be shorter now): compare the newest block both sides have, once per new head.
    if (verifiedHead?.hash === latest.hash) return false;
    const at = minOf(target, cursor.blockNumber);
    if (at >= 0n) {
      const ours = at === cursor.blockNumber ? cursor.blockHash : (await repository.storedBlock(network, at))?.blockHash;
      const theirs = await reader.block(at);
      if (ours !== undefined && theirs && theirs.hash !== ours) {
        log.warn({ block: String(at), hash: theirs.hash, ours }, 'a published block was replaced: reorg');
        await handleDivergence(cursor);
        return true;
      }
    }
    verifiedHead = latest;
    await raiseLevels(latest);
    return false;
  }

  /**
   * Every live event whose block reached a higher level since it was last published is published
   * again at that level (its own message id, `<eventId>@<level>`; `confirmed` keeps the plain id),
   * after its block was checked to be still the chain's; then the level is committed. A crash in
   * between publishes the same message ids again, which JetStream drops.
   */
  async function raiseLevels(latest: BlockHeader): Promise<void> {
    const rising = await repository.risingEvents(network);
    if (rising.length === 0) return;
    const marks = await marksAt(latest);
    const onChain = await reader.blocks([...new Set(rising.map((e) => e.blockNumber))]);
    const raised: { event: StoredEvent; finality: FinalityLevel; confirmations: number }[] = [];
    for (const e of rising) {
      const level = levelOf(e.blockNumber, marks, confirmations);
      const before = FINALITY_LEVELS.indexOf(e.payload.finality ?? 'confirmed');
      if (FINALITY_LEVELS.indexOf(level.finality) <= before) continue;
      // The block moved under us: the next step's reorg check corrects it; nothing is raised on it.
      if (onChain.get(e.blockNumber)?.hash !== e.blockHash) return;
      raised.push({ event: e, ...level });
    }
    if (raised.length === 0) return;
    // An event that jumps from seen past confirmed (several blocks at once) is published at
    // confirmed on the way: every confirmed event has its message under the plain event id.
    const messages = raised.flatMap((r) => {
      const at = (finality: FinalityLevel) => ({ ...r.event.payload, finality, confirmations: r.confirmations }) as ChainEvent;
      return r.event.payload.finality === 'seen' && r.finality !== 'confirmed' ? [at('confirmed'), at(r.finality)] : [at(r.finality)];
    });
    await publish(messages);
    await repository.commitLevels(owner, {
      network,
      raised: raised.map((r) => ({ eventId: r.event.eventId, finality: r.finality, confirmations: r.confirmations })),
    });
    for (const r of raised) metrics.levelsRaised.inc({ network, finality: r.finality });
    log.debug({ raised: raised.length }, 'event levels raised');
  }

  /**
   * One pass of the worker: renew (or take) the lease, then one step. Renewing the lease once per step
   * keeps it alive; catching up loops without sleeping. Returns what the worker does next: `true` at
   * once, `false` after the poll interval, a number of ms in standby or halted.
   */
  async function pass(): Promise<boolean | number> {
    try {
      if (!(await repository.acquireLease(network, owner, options.isGone))) {
        if (leader) log.warn('lease lost to another instance; standing by');
        leader = false;
        cursor = undefined;
        metrics.leader.set(labels, 0);
        setState('standby');
        return Math.min(Math.max(options.pollIntervalMs * 4, 1_000), 5_000);
      }
      if (!leader) log.info('lease taken: this instance follows the network');
      leader = true;
      metrics.leader.set(labels, 1);
      const more = await step();
      if (state !== 'following') setState('following');
      consecutiveFailures = 0;
      return more;
    } catch (error) {
      if (!worker.running()) return false;
      if (error instanceof LeaseLostError) {
        log.warn({ err: error }, 'lease lost while writing; nothing was committed');
        leader = false;
        metrics.leader.set(labels, 0);
        cursor = undefined;
        return true;
      }
      if (error instanceof HaltedError) {
        log.error({ reason }, 'network halted');
        cursor = undefined;
        return Math.max(options.pollIntervalMs * 20, 10_000);
      }
      // The cursor in memory may be ahead of what was committed when the failure hit between the two.
      cursor = undefined;
      if (error instanceof ChainMovedError) {
        // Not a failure: the chain changed under a read (a reorg in progress); read again shortly.
        log.info({ reason: error.message }, 'the chain moved while a range was read; reading it again');
        return false;
      }
      consecutiveFailures += 1;
      metrics.errors.inc(labels);
      const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
      setState(consecutiveFailures >= 3 ? 'failing' : state, message);
      // The worker logs it and retries after its backoff.
      throw error;
    }
  }

  const worker = createPollingWorker({
    name: 'indexer',
    logger: options.logger.child({ network }),
    intervalMs: options.pollIntervalMs,
    // As before the worker: the wait doubles per failure up to 64 poll intervals (at most 30 s).
    maxBackoffMs: Math.min(options.pollIntervalMs * 64, 30_000),
    pass,
    // A standby instance does not chase heads: it tries the lease on its own schedule.
    ...(newHeads
      ? {
          wakeOn: async (wake: () => void) =>
            newHeads.watch(() => {
              if (leader) wake();
            }),
        }
      : {}),
  });

  return {
    network,
    notify: () => {
      registryReadAt = 0;
      worker.wake();
    },
    start: () => worker.start(),
    stop: async () => {
      if (!worker.running()) return;
      await worker.stop();
      if (leader) await repository.releaseLease(network, owner).catch(() => undefined);
      leader = false;
      metrics.leader.set(labels, 0);
      setState('stopped');
    },
    status: () => ({
      network,
      state,
      ...(reason ? { reason } : {}),
      ...(cursor ? { cursor: cursor.blockNumber } : {}),
      ...(head !== undefined ? { head } : {}),
    }),
  };
}
