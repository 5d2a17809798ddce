import { randomUUID } from 'node:crypto';
import type { WalletProvider } from '@holdfast/contracts';
import { customers, workspaces } from '../../src/db/schema.js';
import type { Db } from '../../src/modules/wallets/providers/repository.js';

// Wallet rows reference their workspace (and customer wallets their customer) with foreign keys:
// domain tests that work below HTTP create real rows with these.

/** Inserts a workspace (any id given, else a new one) and returns its id. */
export async function insertWorkspace(db: Db, fields: { id?: string; walletProvider?: WalletProvider | null } = {}): Promise<string> {
  const id = fields.id ?? randomUUID();
  await db.insert(workspaces).values({
    id,
    name: `Workspace ${id.slice(0, 8)}`,
    slug: `ws-${id}`,
    email: `ops-${id.slice(0, 8)}@example.test`,
    status: 'active',
    walletProvider: fields.walletProvider ?? null,
  });
  return id;
}

/** Inserts workspaces with these ids. */
export async function insertWorkspaces(db: Db, ids: string[]): Promise<void> {
  for (const id of ids) await insertWorkspace(db, { id });
}

/** Inserts a customer of the workspace (any id given, else a new one) and returns its id. */
export async function insertCustomer(db: Db, workspaceId: string, id: string = randomUUID()): Promise<string> {
  await db.insert(customers).values({ id, workspaceId, email: `customer-${id}@example.test`, status: 'active' });
  return id;
}
