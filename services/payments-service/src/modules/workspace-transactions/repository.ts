import {
  type PlatformTransaction,
  type TransactionFilters,
  WORKSPACE_STATUS_OF,
  WORKSPACE_TRANSACTION_STATUSES,
  type WorkspaceTransactionStats,
  type WorkspaceTransactionStatus,
} from '@holdfast/contracts';
import type { Sql } from 'postgres';
import { addressesOf, toPaymentsTransaction, toTransactionRow } from '../transactions/index.js';

/** Where a workspace's transactions are: its platforms and its (lower-cased) addresses. */
export interface TransactionScope {
  platformIds: readonly string[];
  addresses: readonly string[];
}

type Row = Parameters<typeof toTransactionRow>[0] & { platform_name: string };

function toPlatformTransaction(row: Row): PlatformTransaction {
  return { ...toPaymentsTransaction(toTransactionRow(row)), platformName: row.platform_name };
}

/**
 * Read-only SQL over `transactions` for the Workspace API: a workspace's transactions are those on
 * its platforms, and those of other platforms from or to one of its addresses (a METADATA_ADDRESS_KEYS
 * key counts only on its own platforms: another tenant's metadata proves nothing).
 * Amounts are summed by PostgreSQL as `numeric` and leave it as text: exact.
 */
export function createWorkspaceTransactionsRepository(sql: Sql) {
  // The expression of the address index (ADR 44), over the alias `t`.
  const addressesOfT = sql.unsafe(addressesOf((column) => `t.${column}`));

  /**
   * The scope's condition on `t` (an empty scope matches nothing): a row of one of its platforms
   * (transactions_platform_* indexes) or naming one of its addresses (the GIN index), so that
   * PostgreSQL reads the two indexes, ORs the row sets, and reads no other platform's rows.
   * `&&` is "has an element in common", each compared with text's `=`: the same rows as
   * `lower(column) = any(addresses)` for each column (the addresses are lower-cased by the caller).
   */
  function inScope(scope: TransactionScope) {
    const ids = sql.array([...scope.platformIds]);
    const addresses = sql.array([...scope.addresses]);
    // Another platform's row counts only by its from or to address: its metadata is whatever that
    // tenant wrote (a made-up transaction "to" the workspace's address in metadata showed in its
    // list). The GIN index still finds the candidates; the from/to recheck drops metadata-only ones.
    return sql`(t.platform_id = any(${ids}::uuid[]) or (${addressesOfT} && ${addresses}::text[]
      and (lower(t.from_address) = any(${addresses}::text[]) or lower(t.to_address) = any(${addresses}::text[]))))`;
  }

  function filtered(f: TransactionFilters) {
    const parts = [
      f.statuses ? sql`and t.status = any(${sql.array([...f.statuses])}::text[])` : sql``,
      f.dateFrom ? sql`and t.created_at >= ${f.dateFrom}::timestamptz` : sql``,
      f.dateTo ? sql`and t.created_at <= ${f.dateTo}::timestamptz` : sql``,
      f.fromAddress ? sql`and lower(t.from_address) = ${f.fromAddress.toLowerCase()}` : sql``,
      f.toAddress ? sql`and lower(t.to_address) = ${f.toAddress.toLowerCase()}` : sql``,
      f.walletAddress
        ? sql`and (lower(t.from_address) = ${f.walletAddress.toLowerCase()} or lower(t.to_address) = ${f.walletAddress.toLowerCase()})`
        : sql``,
    ];
    return parts.reduce((acc, part) => sql`${acc} ${part}`, sql``);
  }

  /** `case` mapping payments' statuses to the Workspace API's (from the one table in contracts). */
  function workspaceStatus() {
    const groups = WORKSPACE_TRANSACTION_STATUSES.map((upper) => {
      const lower = Object.entries(WORKSPACE_STATUS_OF)
        .filter(([, u]) => u === upper)
        .map(([l]) => l);
      return sql`when t.status = any(${sql.array(lower)}::text[]) then ${upper}`;
    });
    return sql`case ${groups.reduce((acc, part) => sql`${acc} ${part}`, sql``)} end`;
  }

  return {
    /** One page, newest first, and the total, in one query. */
    async list(
      scope: TransactionScope,
      filters: TransactionFilters,
      page: number,
      limit: number,
    ): Promise<{ transactions: PlatformTransaction[]; total: number }> {
      const rows = await sql<(Row & { total: number; id: string | null })[]>`
        with scoped as (
          select t.*, p.name as platform_name
          from transactions t join platforms p on p.id = t.platform_id
          where ${inScope(scope)} ${filtered(filters)}
        ), paged as (
          select * from scoped order by created_at desc, id desc limit ${limit} offset ${(page - 1) * limit}
        )
        select (select count(*) from scoped)::int as total, paged.*
        from (select 1) as one left join paged on true
        order by paged.created_at desc nulls last, paged.id desc`;
      const total = rows[0]?.total ?? 0;
      return { transactions: rows.filter((r) => r.id !== null).map((r) => toPlatformTransaction(r as Row)), total };
    },

    async get(scope: TransactionScope, id: string): Promise<PlatformTransaction | null> {
      const rows = await sql<Row[]>`
        select t.*, p.name as platform_name
        from transactions t join platforms p on p.id = t.platform_id
        where t.id = ${id} and ${inScope(scope)}`;
      return rows[0] ? toPlatformTransaction(rows[0]) : null;
    },

    /** Count and exact sum per upper-case status (every status present, zero when none). */
    async stats(scope: TransactionScope): Promise<WorkspaceTransactionStats> {
      const rows = await sql<{ status: WorkspaceTransactionStatus; count: number; total: string }[]>`
        select ${workspaceStatus()} as status, count(*)::int as count, sum(t.amount)::text as total
        from transactions t
        where ${inScope(scope)}
        group by 1`;
      const stats = Object.fromEntries(
        WORKSPACE_TRANSACTION_STATUSES.map((s) => [s, { count: 0, total_amount: '0' }]),
      ) as WorkspaceTransactionStats;
      for (const row of rows) stats[row.status] = { count: row.count, total_amount: trimDecimal(row.total) };
      return stats;
    },

    /** An active platform of the workspace, or null. */
    /** Those of `platformIds` that belong to one of `workspaceIds` (active or not: reads cover a platform's history). */
    async platformsOfWorkspaces(platformIds: readonly string[], workspaceIds: readonly string[]): Promise<string[]> {
      if (platformIds.length === 0) return [];
      const rows = await sql<{ id: string }[]>`
        select id from platforms where id = any(${sql.array([...platformIds])}::uuid[]) and workspace_id = any(${sql.array([...workspaceIds])}::uuid[])`;
      return rows.map((r) => r.id);
    },

    async activePlatformOf(workspaceId: string, platformId: string): Promise<{ id: string; name: string; sandbox: boolean } | null> {
      const rows = await sql<{ id: string; name: string; sandbox: boolean }[]>`
        select id, name, sandbox from platforms where id = ${platformId} and workspace_id = ${workspaceId} and is_active`;
      return rows[0] ?? null;
    },

    async platformName(platformId: string): Promise<string> {
      const rows = await sql<{ name: string }[]>`select name from platforms where id = ${platformId}`;
      return rows[0]?.name ?? '';
    },
  };
}

/** `2000000000.002000` -> `2000000000.002` (numeric keeps the scale of its inputs). */
export function trimDecimal(value: string): string {
  return value.includes('.') ? value.replace(/0+$/, '').replace(/\.$/, '') : value;
}

export type WorkspaceTransactionsRepository = ReturnType<typeof createWorkspaceTransactionsRepository>;
