import type { EscrowContract } from '@holdfast/config';
import type { ChainEvent, FinalityLevel } from '@holdfast/contracts';
import type { Sql } from '@holdfast/db';
import { rowMapper } from '@holdfast/db';
import { cursors, events, recentBlocks, registeredContracts } from './tables.js';

/** The lease of a network is held by another instance, or expired while this one was paused: stop writing. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
}

/** How far a network was read: the last block whose events JetStream acknowledged, and the chain's genesis. */
export type Cursor = Pick<typeof cursors.$inferSelect, 'blockNumber' | 'blockHash' | 'genesisHash'>;
const toCursor = rowMapper(cursors, { only: ['blockNumber', 'blockHash', 'genesisHash'] });

/** A block kept to notice a reorg. */
export type StoredBlock = Pick<typeof recentBlocks.$inferSelect, 'blockNumber' | 'blockHash' | 'parentHash'>;
const toBlock = rowMapper(recentBlocks, { only: ['blockNumber', 'blockHash', 'parentHash'] });

const EVENT_COLUMNS = ['eventId', 'logKey', 'occurrence', 'blockNumber', 'blockHash', 'payload'] as const;
/** A published event, and whether its correction was published (`removed`). */
export type StoredEvent = Pick<typeof events.$inferSelect, (typeof EVENT_COLUMNS)[number]> & { removed: boolean };
const toEventColumns = rowMapper(events, { only: EVENT_COLUMNS });
/** The event statements' rows: EVENT_COLUMNS and the `removed` they compute. */
type EventDbRow = Record<string, unknown> & { removed: boolean };
const toEvent = (row: EventDbRow): StoredEvent => ({ ...toEventColumns(row), removed: row.removed });

export interface NewEvent {
  eventId: string;
  logKey: string;
  occurrence: number;
  payload: ChainEvent;
}

/** A contract registered at run time (a workspace's dedicated escrow). */
export interface RegisteredContract extends EscrowContract {
  workspaceId: string;
  deploymentId: string;
  registeredAt: Date;
}

const toRegisteredColumns = rowMapper(registeredContracts);
function toRegistered(row: Record<string, unknown>): RegisteredContract {
  const registered = toRegisteredColumns(row);
  return {
    ...registered,
    // Lower case, as ESCROW_CONTRACTS entries are (the record keeps the checksummed form).
    address: registered.address.toLowerCase() as EscrowContract['address'],
  };
}

type Tx = Sql;

/** A lease is renewed at every step (at least every poll interval); one not renewed for this long is free. */
const LEASE_TTL_SECONDS = 15;

/** All SQL of the indexer. Every write runs in a transaction that first checks (and renews) the network's lease. */
export function createIndexerRepository(sql: Sql) {
  /** The fence: the lease must be ours and alive, or nothing is written. */
  async function fenced<T>(network: string, owner: string, work: (tx: Tx) => Promise<T>): Promise<T> {
    return (await sql.begin(async (tx) => {
      const [lease] = await tx<{ owner: string; alive: boolean }[]>`
        select owner, expires_at > now() as alive from leases where network = ${network} for update`;
      if (!lease || lease.owner !== owner || !lease.alive) throw new LeaseLostError(`the lease of ${network} is not held by ${owner}`);
      await tx`update leases set expires_at = now() + make_interval(secs => ${LEASE_TTL_SECONDS}) where network = ${network}`;
      return work(tx as unknown as Tx);
    })) as T;
  }

  async function insertEvents(tx: Tx, network: string, list: NewEvent[]): Promise<void> {
    // In slices: one statement has at most 65535 parameters.
    for (let i = 0; i < list.length; i += 1000) {
      const rows = list.slice(i, i + 1000).map((e) => ({
        event_id: e.eventId,
        network,
        log_key: e.logKey,
        occurrence: e.occurrence,
        kind: e.payload.kind,
        block_number: String(e.payload.blockNumber),
        block_hash: e.payload.blockHash,
        log_index: e.payload.logIndex,
        finality: e.payload.finality ?? 'confirmed',
        // A string: the drizzle client that shares this pool serializes json(b) parameters as they come.
        payload: JSON.stringify(e.payload),
      }));
      await tx`insert into events ${tx(rows)} on conflict (event_id) do nothing`;
    }
  }

  async function storeBlocks(tx: Tx, network: string, blocks: StoredBlock[], pruneBelow: bigint): Promise<void> {
    if (blocks.length > 0) {
      const rows = blocks.map((b) => ({
        network,
        block_number: b.blockNumber.toString(),
        block_hash: b.blockHash,
        parent_hash: b.parentHash,
      }));
      await tx`insert into recent_blocks ${tx(rows)}
        on conflict (network, block_number) do update set block_hash = excluded.block_hash, parent_hash = excluded.parent_hash, seen_at = now()`;
    }
    await tx`delete from recent_blocks where network = ${network} and block_number < ${pruneBelow.toString()}`;
  }

  return {
    /**
     * Takes the network's lease when it is free, expired, already ours (then renews it), or held by an
     * instance `isGone` knows to be dead (a crashed predecessor on this host), without waiting for expiry.
     */
    async acquireLease(network: string, owner: string, isGone: (holder: string) => boolean = () => false): Promise<boolean> {
      const rows = await sql`
        insert into leases (network, owner, expires_at) values (${network}, ${owner}, now() + make_interval(secs => ${LEASE_TTL_SECONDS}))
        on conflict (network) do update set owner = excluded.owner, expires_at = excluded.expires_at
          where leases.owner = excluded.owner or leases.expires_at < now()
        returning owner`;
      if (rows.length === 1) return true;
      const [holder] = await sql<{ owner: string }[]>`select owner from leases where network = ${network}`;
      if (!holder || !isGone(holder.owner)) return false;
      const taken = await sql`update leases set owner = ${owner}, expires_at = now() + make_interval(secs => ${LEASE_TTL_SECONDS})
        where network = ${network} and owner = ${holder.owner} returning owner`;
      return taken.length === 1;
    },

    async releaseLease(network: string, owner: string): Promise<void> {
      await sql`delete from leases where network = ${network} and owner = ${owner}`;
    },

    async cursor(network: string): Promise<Cursor | undefined> {
      const [row] = await sql`select block_number, block_hash, genesis_hash from cursors where network = ${network}`;
      return row ? toCursor(row) : undefined;
    },

    /**
     * Records a contract registered at run time; the existing record when it was registered before
     * (a repeated command), with `created` telling the two apart.
     */
    async registerContract(args: {
      network: string;
      address: string;
      deploymentBlock: bigint;
      workspaceId: string;
      deploymentId: string;
    }): Promise<{ created: boolean; contract: RegisteredContract }> {
      const inserted = await sql`
        insert into registered_contracts (network, address, deployment_block, workspace_id, deployment_id)
        values (${args.network}, ${args.address}, ${args.deploymentBlock.toString()}, ${args.workspaceId}, ${args.deploymentId})
        on conflict (network, address) do nothing
        returning network, address, deployment_block, workspace_id, deployment_id, registered_at`;
      if (inserted[0]) return { created: true, contract: toRegistered(inserted[0]) };
      const [existing] = await sql`
        select network, address, deployment_block, workspace_id, deployment_id, registered_at
        from registered_contracts where network = ${args.network} and address = ${args.address}`;
      return { created: false, contract: toRegistered(existing!) };
    },

    /** The contract registered at run time at `address` (EIP-55, as registered) on `network`, or null. */
    async registeredContract(network: string, address: string): Promise<RegisteredContract | null> {
      const rows = await sql`
        select network, address, deployment_block, workspace_id, deployment_id, registered_at
        from registered_contracts where network = ${network} and address = ${address}`;
      return rows[0] ? toRegistered(rows[0]) : null;
    },

    /** The contracts registered at run time on a network. */
    async registeredContracts(network: string): Promise<RegisteredContract[]> {
      const rows = await sql`
        select network, address, deployment_block, workspace_id, deployment_id, registered_at
        from registered_contracts where network = ${network} order by registered_at, address`;
      return rows.map(toRegistered);
    },

    /** Networks with contracts registered at run time (followed from the start, whatever ESCROW_CONTRACTS says). */
    async registeredNetworks(): Promise<string[]> {
      const rows = await sql<{ network: string }[]>`select distinct network from registered_contracts order by network`;
      return rows.map((r) => r.network);
    },

    async knownContracts(network: string): Promise<string[]> {
      const rows = await sql<{ address: string }[]>`select address from contracts where network = ${network}`;
      return rows.map((r) => r.address);
    },

    /** The hash we stored for a block, if we kept it. */
    async storedBlock(network: string, blockNumber: bigint): Promise<StoredBlock | undefined> {
      const [row] = await sql`
        select block_number, block_hash, parent_hash from recent_blocks where network = ${network} and block_number = ${blockNumber.toString()}`;
      return row ? toBlock(row) : undefined;
    },

    /** Kept blocks at or below `atOrBelow`, newest first. */
    async recentBlocks(network: string, atOrBelow: bigint): Promise<StoredBlock[]> {
      const rows = await sql`
        select block_number, block_hash, parent_hash from recent_blocks
        where network = ${network} and block_number <= ${atOrBelow.toString()} order by block_number desc`;
      return rows.map(toBlock);
    },

    /** Every published event (removed or not) of these logs. */
    async eventsOfLogs(logKeys: string[]): Promise<StoredEvent[]> {
      if (logKeys.length === 0) return [];
      const rows = await sql<EventDbRow[]>`
        select event_id, log_key, occurrence, block_number, block_hash, removed_at is not null as removed, payload
        from events where log_key in ${sql(logKeys)}`;
      return rows.map(toEvent);
    },

    /** Live (not corrected) events above a block, newest first: the order corrections are published in. */
    async liveEventsAbove(network: string, blockNumber: bigint): Promise<StoredEvent[]> {
      const rows = await sql<EventDbRow[]>`
        select event_id, log_key, occurrence, block_number, block_hash, false as removed, payload
        from events where network = ${network} and removed_at is null and block_number > ${blockNumber.toString()}
        order by block_number desc, log_index desc`;
      return rows.map(toEvent);
    },

    /** Live events whose published level is below `finalized`, in chain order: their level may rise. */
    async risingEvents(network: string): Promise<StoredEvent[]> {
      const rows = await sql<EventDbRow[]>`
        select event_id, log_key, occurrence, block_number, block_hash, false as removed, payload
        from events where network = ${network} and removed_at is null and finality <> 'finalized'
        order by block_number, log_index`;
      return rows.map(toEvent);
    },

    /** After JetStream acknowledged the events again at their higher level: their stored level and payload. */
    async commitLevels(
      owner: string,
      args: { network: string; raised: { eventId: string; finality: FinalityLevel; confirmations: number }[] },
    ): Promise<void> {
      if (args.raised.length === 0) return;
      await fenced(args.network, owner, async (tx) => {
        const raised = JSON.stringify(
          args.raised.map((r) => ({ event_id: r.eventId, finality: r.finality, confirmations: r.confirmations })),
        );
        await tx`update events e set finality = r.finality,
            payload = e.payload || jsonb_build_object('finality', r.finality, 'confirmations', r.confirmations)
          from jsonb_to_recordset(${raised}::text::jsonb) as r(event_id text, finality text, confirmations int)
          where e.event_id = r.event_id and e.removed_at is null`;
      });
    },

    /** A network's first cursor (the block before the earliest deployment) and the contracts it covers. */
    async start(
      owner: string,
      args: { network: string; chainId: number; cursor: StoredBlock; genesisHash: string; contracts: EscrowContract[] },
    ): Promise<void> {
      await fenced(args.network, owner, async (tx) => {
        await tx`insert into cursors (network, chain_id, block_number, block_hash, genesis_hash)
          values (${args.network}, ${args.chainId}, ${args.cursor.blockNumber.toString()}, ${args.cursor.blockHash}, ${args.genesisHash})`;
        await storeBlocks(tx, args.network, [args.cursor], args.cursor.blockNumber);
        for (const c of args.contracts) {
          await tx`insert into contracts (network, address, deployment_block)
            values (${args.network}, ${c.address}, ${c.deploymentBlock.toString()}) on conflict do nothing`;
        }
      });
    },

    /** After JetStream acknowledged a range's events: the events, the blocks to keep, and the cursor, at once. */
    async commitRange(
      owner: string,
      args: { network: string; events: NewEvent[]; blocks: StoredBlock[]; cursor: StoredBlock; pruneBelow: bigint },
    ): Promise<void> {
      await fenced(args.network, owner, async (tx) => {
        await insertEvents(tx, args.network, args.events);
        await storeBlocks(tx, args.network, args.blocks, args.pruneBelow);
        const updated =
          await tx`update cursors set block_number = ${args.cursor.blockNumber.toString()}, block_hash = ${args.cursor.blockHash},
            updated_at = now() where network = ${args.network}`;
        if (updated.count !== 1) throw new LeaseLostError(`the cursor of ${args.network} is gone`);
      });
    },

    /** The events of a contract added behind the cursor (its history), then the contract itself once complete. */
    async commitContractHistory(
      owner: string,
      args: { network: string; events: NewEvent[]; contract?: EscrowContract | undefined },
    ): Promise<void> {
      await fenced(args.network, owner, async (tx) => {
        await insertEvents(tx, args.network, args.events);
        if (args.contract) {
          await tx`insert into contracts (network, address, deployment_block)
            values (${args.network}, ${args.contract.address}, ${args.contract.deploymentBlock.toString()}) on conflict do nothing`;
        }
      });
    },

    /** After the corrections were acknowledged: those events are removed, the cursor goes back to the common ancestor. */
    async commitRollback(owner: string, args: { network: string; ancestor: StoredBlock; removedEventIds: string[] }): Promise<void> {
      await fenced(args.network, owner, async (tx) => {
        if (args.removedEventIds.length > 0) {
          await tx`update events set removed_at = now(), removed_reason = 'reorg'
            where event_id in ${tx(args.removedEventIds)} and removed_at is null`;
        }
        await tx`delete from recent_blocks where network = ${args.network} and block_number > ${args.ancestor.blockNumber.toString()}`;
        await tx`update cursors set block_number = ${args.ancestor.blockNumber.toString()}, block_hash = ${args.ancestor.blockHash},
            updated_at = now() where network = ${args.network}`;
      });
    },

    /** After the corrections of everything were acknowledged: the network starts over from its deployment blocks. */
    async commitReset(owner: string, args: { network: string; removedEventIds: string[] }): Promise<void> {
      await fenced(args.network, owner, async (tx) => {
        for (let i = 0; i < args.removedEventIds.length; i += 1000) {
          await tx`update events set removed_at = now(), removed_reason = 'chain_reset'
            where event_id in ${tx(args.removedEventIds.slice(i, i + 1000))} and removed_at is null`;
        }
        await tx`delete from recent_blocks where network = ${args.network}`;
        await tx`delete from contracts where network = ${args.network}`;
        await tx`delete from cursors where network = ${args.network}`;
      });
    },
  };
}

export type IndexerRepository = ReturnType<typeof createIndexerRepository>;
