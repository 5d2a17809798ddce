import { type AppError, type CreateCustomerBody, conflict, type FieldError, notFound, uuidv7, validationError } from '@holdfast/contracts';
import type { Store } from '../../db/store.js';
import type { Caller } from '../access/index.js';
import { type AuditAction, type AuditRepository, type AuditService, diffChanges } from '../audit/index.js';
import { type RemoteTasksRepository, task } from '../remote-tasks/index.js';
import type { SessionsRepository } from '../sessions/index.js';
import { normalizeEmail } from '../users/index.js';
import type { WorkspacesRepository } from '../workspaces/index.js';
import { auditedCustomer, CUSTOMER_AUDIT } from './records.js';
import { type CustomersRepository, type CustomerWithWallet, duplicateCustomerField, type WorkspaceRef } from './repository.js';

// What the administration of customers (admin.ts) and their own sessions (customer-sessions.ts)
// both use: the repositories, a new customer's insert, its field checks and the 409 of a duplicate.

export interface CustomersRepos {
  customers: CustomersRepository;
  /** The workspace's `autoCreateCustomerWallets` setting. */
  workspaces: Pick<WorkspacesRepository, 'findWalletSettings'>;
  /** Where a new customer's wallet step is queued (autoCreateCustomerWallets). */
  remoteTasks: Pick<RemoteTasksRepository, 'enqueue'>;
  /** The login throttle (shared with user logins, keyed apart). */
  sessions: SessionsRepository;
  audit: AuditRepository;
}

/** Largest `metadata` object, serialised (as for workspaces). */
export const CUSTOMER_METADATA_MAX_BYTES = 16 * 1024;
/** Workspaces whose customers may not sign in (or stay signed in). */
export const CLOSED_WORKSPACE = new Set(['inactive', 'suspended']);

export function fieldProblems(body: {
  metadata?: Record<string, unknown> | undefined;
  dateOfBirth?: string | null | undefined;
}): FieldError[] {
  const problems: FieldError[] = [];
  if (body.metadata && Buffer.byteLength(JSON.stringify(body.metadata)) > CUSTOMER_METADATA_MAX_BYTES) {
    problems.push({ field: 'metadata', reason: `must be at most ${CUSTOMER_METADATA_MAX_BYTES} bytes as JSON` });
  }
  if (body.dateOfBirth && body.dateOfBirth > new Date().toISOString().slice(0, 10)) {
    problems.push({ field: 'dateOfBirth', reason: 'must not be in the future' });
  }
  return problems;
}

export function duplicate(field: 'email' | 'externalId'): AppError {
  return conflict(
    field === 'email'
      ? 'A customer with this e-mail already exists in the workspace'
      : 'A customer with this externalId already exists in the workspace',
    { field },
  );
}

export async function workspaceOrNotFound(repos: CustomersRepos, id: string): Promise<WorkspaceRef> {
  const workspace = await repos.customers.findWorkspace(id);
  if (!workspace) throw notFound('Workspace');
  return workspace;
}

/** The fields of a new customer: an administrator's body, or a registration's (names optional). */
export type NewCustomerFields = Omit<CreateCustomerBody, 'firstName' | 'lastName'> & {
  firstName?: string | undefined;
  lastName?: string | undefined;
};

/** Inserts a customer and its audit entry (`create` or `register`); its wallet follows when the workspace auto-creates them. */
export type InsertCustomer = (
  caller: Caller,
  workspaceId: string,
  body: NewCustomerFields,
  what: AuditAction,
  extra: { passwordHash?: string; createdBy: string | null },
) => Promise<CustomerWithWallet>;

export interface InsertCustomerDeps {
  store: Store<CustomersRepos>;
  audit: AuditService;
  /** Runs queued remote tasks right after the commit (the new customer's wallet step); the runner retries what fails. */
  tasks?: { attempt: (ids: string[]) => Promise<void> } | undefined;
}

export function createInsertCustomer(deps: InsertCustomerDeps): InsertCustomer {
  const { store, audit } = deps;
  return async (caller, workspaceId, body, what, extra) => {
    const problems = fieldProblems(body);
    if (problems.length > 0) throw validationError(problems);
    const email = normalizeEmail(body.email);
    let walletTasks: string[] = [];
    let created: CustomerWithWallet;
    try {
      created = await store.transaction(async (repos) => {
        if (await repos.customers.findByEmail(workspaceId, email)) throw duplicate('email');
        const row = await repos.customers.insert({
          id: uuidv7(),
          workspaceId,
          email,
          firstName: body.firstName ?? null,
          lastName: body.lastName ?? null,
          externalId: body.externalId ?? null,
          phoneNumber: body.phoneNumber ?? null,
          dateOfBirth: body.dateOfBirth ?? null,
          address: body.address ?? null,
          city: body.city ?? null,
          state: body.state ?? null,
          postalCode: body.postalCode ?? null,
          country: body.country?.toUpperCase() ?? null,
          status: body.status ?? 'active',
          metadata: body.metadata ?? {},
          passwordHash: extra.passwordHash ?? null,
          createdBy: extra.createdBy,
        });
        await audit.record(repos, caller, what, {
          resourceId: row.id,
          workspaceId,
          details: `${what === CUSTOMER_AUDIT.register ? 'Registered' : 'Created'} customer ${email}`,
          changes: diffChanges({}, auditedCustomer(row)),
          ...(what === CUSTOMER_AUDIT.register ? { metadata: { customerId: row.id } } : {}),
        });
        // autoCreateCustomerWallets: the wallet is created after the commit, never inside this transaction.
        const walletSettings = await repos.workspaces.findWalletSettings(workspaceId);
        walletTasks = walletSettings?.autoCreateCustomerWallets
          ? await repos.remoteTasks.enqueue([task.autoCreateCustomerWallet(workspaceId, row.id)])
          : [];
        return { ...row, walletAddress: null, walletLinkedAt: null };
      });
    } catch (error) {
      const field = duplicateCustomerField(error);
      if (field) throw duplicate(field);
      throw error;
    }
    if (walletTasks.length === 0 || !deps.tasks) return created;
    // Once now, so that the wallet usually exists before the answer; a failure stays queued for the runner.
    await deps.tasks.attempt(walletTasks);
    const wallet = await store.repos.customers.findById(created.id);
    return wallet ? { ...created, walletAddress: wallet.walletAddress, walletLinkedAt: wallet.walletLinkedAt } : created;
  };
}
