import { randomUUID } from 'node:crypto';
import type { Harness } from './harness.js';

export interface SeedTx {
  platformId: string;
  status?: string;
  amount?: string;
  fromAddress?: string;
  toAddress?: string;
  metadata?: Record<string, unknown>;
  createdAt?: string;
}

/**
 * Arranges payments transactions straight in the payments schema of the file's database (what
 * payments' create would have written): the reads under test are payments' own queries.
 */
export async function seedTransaction(h: Harness, t: SeedTx): Promise<string> {
  const id = randomUUID();
  await h.sql`
    insert into payments.transactions
      (id, platform_id, workspace_id, status, amount, currency, from_address, to_address, blockchain_network, chain_id,
       orchestration_type, metadata, created_at, updated_at)
    select ${id}, p.id, p.workspace_id, ${t.status ?? 'pending'}, ${t.amount ?? '10.5'}::numeric, 'USDC',
      ${t.fromAddress ?? `0x${'a'.repeat(40)}`}, ${t.toAddress ?? `0x${'b'.repeat(40)}`}, 'base-sepolia', 84532, 'raw',
      ${h.sql.json((t.metadata ?? {}) as never)}, coalesce(${t.createdAt ?? null}::timestamptz, now()), now()
    from payments.platforms p where p.id = ${t.platformId}`;
  return id;
}

/** `count` transactions of one amount on a platform, in one statement. */
export async function seedMany(h: Harness, platformId: string, count: number, amount: string, status = 'completed'): Promise<void> {
  await h.sql`
    insert into payments.transactions
      (id, platform_id, workspace_id, status, amount, currency, from_address, to_address, blockchain_network, chain_id,
       orchestration_type, metadata)
    select gen_random_uuid(), p.id, p.workspace_id, ${status}, ${amount}::numeric, 'USDC',
      '0x' || repeat('c', 40), '0x' || repeat('d', 40), 'base-sepolia', 84532, 'raw', '{}'::jsonb
    from payments.platforms p, generate_series(1, ${count}) where p.id = ${platformId}`;
}

/** A custody address of the workspace: an account of its built-in (PLATFORM) wallet. */
export async function seedCustodyAddress(h: Harness, workspaceId: string, address: string): Promise<void> {
  const walletId = randomUUID();
  await h.sql`insert into workspace.platform_wallets (id, workspace_id, seed_sealed) values (${walletId}, ${workspaceId}, 'sealed-test-seed')
    on conflict (workspace_id) do nothing`;
  const [wallet] = await h.sql<{ id: string }[]>`select id from workspace.platform_wallets where workspace_id = ${workspaceId}`;
  await h.sql`insert into workspace.platform_wallet_accounts (id, wallet_id, workspace_id, address, address_format, curve, path)
    values (${randomUUID()}, ${wallet!.id}, ${workspaceId}, ${address}, 'ADDRESS_FORMAT_ETHEREUM', 'CURVE_SECP256K1', ${`m/44'/60'/0'/0/${Math.floor(Math.random() * 1e6)}`})`;
}
