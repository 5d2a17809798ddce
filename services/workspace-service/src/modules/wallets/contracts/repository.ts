import { type ContractNetwork, uuidv7 } from '@holdfast/contracts';
import { and, asc, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Sql } from 'postgres';
import { findRow, uniqueViolationOf } from '../../../db/queries.js';
import type { Tx } from '../provider-configs/repository.js';
import type { Db } from '../providers/repository.js';
import { type ContractDeploymentRow, type DeploymentMetadata, contractDeployments as t } from './tables.js';

export type NewDeployment = typeof t.$inferInsert;

/** A pending deployment older than this was abandoned (the process stopped while it was mined). */
export const ABANDONED_AFTER = '15 minutes';

/** All SQL of escrow contract deployments. */
export function createContractDeploymentRepository(db: Db) {
  const client = (db as unknown as { $client: Sql }).$client;

  return {
    transaction: <T>(work: (tx: Tx) => Promise<T>): Promise<T> => db.transaction((tx) => work(tx as Tx)),

    /**
     * Runs `work` while holding a session advisory lock on a dedicated connection: deployments from
     * one deployer on one network never overlap, whatever the number of instances (one nonce each).
     */
    withLock: async <T>(name: string, work: () => Promise<T>): Promise<T> => {
      const connection = await client.reserve();
      try {
        await connection`select pg_advisory_lock(hashtext(${name}))`;
        try {
          return await work();
        } finally {
          await connection`select pg_advisory_unlock(hashtext(${name}))`;
        }
      } finally {
        connection.release();
      }
    },

    /** Makes the shared rows match ESCROW_CONTRACTS: listed ones active, others deprecated. */
    syncShared: async (shared: [ContractNetwork, string][]): Promise<void> => {
      await db.transaction(async (tx) => {
        for (const [network, address] of shared) {
          await tx.execute(sql`
            insert into contract_deployments (id, network, contract_type, contract_address, status, is_shared, deployed_at, metadata)
            values (${uuidv7()}, ${network}, 'escrow', ${address}, 'active', true, now(), '{}'::jsonb)
            on conflict (network, lower(contract_address)) where is_shared
            do update set status = 'active', updated_at = now() where contract_deployments.status <> 'active'`);
        }
        const keep = new Set(shared.map(([network, address]) => `${network}:${address.toLowerCase()}`));
        const active = await tx
          .select()
          .from(t)
          .where(and(eq(t.isShared, true), eq(t.status, 'active')));
        const gone = active.filter((row) => !keep.has(`${row.network}:${row.contractAddress?.toLowerCase()}`)).map((row) => row.id);
        if (gone.length > 0) await tx.update(t).set({ status: 'deprecated', updatedAt: new Date() }).where(inArray(t.id, gone));
      });
    },

    findById: async (id: string, ex: Db | Tx = db): Promise<ContractDeploymentRow | undefined> => {
      const [row] = await ex.select().from(t).where(eq(t.id, id));
      return row;
    },

    /** The workspace's dedicated deployments (every status) and the active shared ones. */
    listForWorkspace: async (workspaceId: string): Promise<ContractDeploymentRow[]> =>
      db
        .select()
        .from(t)
        .where(sql`${t.workspaceId} = ${workspaceId} or (${t.isShared} and ${t.status} = 'active')`)
        .orderBy(asc(t.network), asc(t.isShared), desc(t.createdAt)),

    /** The contract new transactions use on a network: the workspace's active dedicated one, else the active shared one. */
    findActiveFor: async (workspaceId: string, network: ContractNetwork): Promise<ContractDeploymentRow | undefined> => {
      const [row] = await db
        .select()
        .from(t)
        .where(and(eq(t.network, network), eq(t.status, 'active'), sql`(${t.workspaceId} = ${workspaceId} or ${t.isShared})`) as SQL)
        .orderBy(asc(t.isShared), desc(t.createdAt))
        .limit(1);
      return row;
    },

    findLiveDedicated: async (workspaceId: string, network: ContractNetwork): Promise<ContractDeploymentRow | undefined> => {
      return findRow(db, t, and(eq(t.workspaceId, workspaceId), eq(t.network, network), inArray(t.status, ['pending', 'active'])));
    },

    /** Gives up pending deployments nobody finished (the process stopped while one was mined). */
    failAbandoned: async (tx: Tx, workspaceId: string, network: ContractNetwork): Promise<ContractDeploymentRow[]> =>
      tx
        .update(t)
        .set({
          status: 'failed',
          updatedAt: new Date(),
          metadata: sql`${t.metadata} || '{"error":"abandoned: the process stopped before the deployment was confirmed"}'::jsonb`,
        })
        .where(
          and(
            eq(t.workspaceId, workspaceId),
            eq(t.network, network),
            eq(t.status, 'pending'),
            sql`${t.createdAt} < now() - ${ABANDONED_AFTER}::interval`,
          ),
        )
        .returning(),

    /**
     * The workspace's dedicated deployments created since `since` (any status: a failed one paid
     * gas too), counted under a transaction lock per workspace so two requests cannot both pass the
     * bound; and the oldest of them (when the window frees a place).
     */
    deploymentsSince: async (tx: Tx, workspaceId: string, since: Date): Promise<{ count: number; oldest: Date | null }> => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`contract-deployments:${workspaceId}`}))`);
      const [row] = await tx
        .select({ count: sql<number>`count(*)::int`, oldest: sql<string | null>`min(${t.createdAt})::text` })
        .from(t)
        .where(and(eq(t.workspaceId, workspaceId), eq(t.isShared, false), sql`${t.createdAt} >= ${since.toISOString()}::timestamptz`));
      return { count: row?.count ?? 0, oldest: row?.oldest ? new Date(row.oldest) : null };
    },

    /** Inserts a pending deployment; undefined when the workspace already has a live one there. */
    insertPending: async (tx: Tx, row: NewDeployment): Promise<ContractDeploymentRow | undefined> => {
      try {
        return await tx.transaction(async (inner) => {
          const [inserted] = await inner.insert(t).values(row).returning();
          return inserted;
        });
      } catch (error) {
        if (uniqueViolationOf(error)) return undefined;
        throw error;
      }
    },

    /**
     * Dedicated escrows the chain-indexer has not acknowledged yet (deployed, so active or since
     * deprecated: a deprecated one may still hold funds), oldest first.
     */
    awaitingIndexer: async (limit: number): Promise<ContractDeploymentRow[]> =>
      db
        .select()
        .from(t)
        .where(
          and(
            eq(t.isShared, false),
            inArray(t.status, ['active', 'deprecated']),
            sql`${t.contractAddress} is not null and ${t.indexerRegisteredAt} is null`,
          ) as SQL,
        )
        .orderBy(asc(t.deployedAt))
        .limit(limit),

    markIndexerRegistered: async (id: string): Promise<void> => {
      await db
        .update(t)
        .set({ indexerRegisteredAt: new Date() })
        .where(and(eq(t.id, id), sql`${t.indexerRegisteredAt} is null`) as SQL);
    },

    update: async (
      ex: Db | Tx,
      id: string,
      patch: Partial<Pick<ContractDeploymentRow, 'status' | 'contractAddress' | 'deploymentTxHash' | 'deployedAt'>> & {
        metadata?: DeploymentMetadata;
      },
    ): Promise<ContractDeploymentRow> => {
      const [row] = await ex
        .update(t)
        .set({ ...patch, updatedAt: new Date() })
        .where(eq(t.id, id))
        .returning();
      if (!row) throw new Error(`deployment ${id} vanished`);
      return row;
    },
  };
}
export type ContractDeploymentRepository = ReturnType<typeof createContractDeploymentRepository>;
