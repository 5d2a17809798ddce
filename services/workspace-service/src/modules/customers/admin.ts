import {
  type CreateCustomerBody,
  type CreateGlobalCustomerBody,
  type CustomerListQuery,
  type CustomerRecord,
  forbidden,
  notFound,
  type PaginationMeta,
  paginationMeta,
  type UpdateCustomerBody,
  validationError,
  type WorkspaceCustomerListQuery,
} from '@holdfast/contracts';
import type { Store } from '../../db/store.js';
import { type Actor, adminReadScope, assertWorkspaceAdmin, type Caller, requireActor } from '../access/index.js';
import { type AuditService, diffChanges } from '../audit/index.js';
import { normalizeEmail } from '../users/index.js';
import { auditedCustomer, CUSTOMER_AUDIT, toCustomerRecord } from './records.js';
import { type CustomerPatch, type CustomerWithWallet, duplicateCustomerField } from './repository.js';
import { type CustomersRepos, duplicate, fieldProblems, type InsertCustomer, workspaceOrNotFound } from './shared.js';

/** A page of customers as the list routes answer it. */
export interface CustomerPage {
  customers: CustomerRecord[];
  pagination: PaginationMeta;
}

/**
 * What a workspace's administrators (its ADMINs, and SUPER_ADMINs) do to its customers. Another
 * tenant's customers do not exist for an actor (404).
 */
export interface CustomerAdmin {
  /** GET /workspaces/{id}/customers. */
  listForWorkspace(actor: Actor, workspaceId: string, query: WorkspaceCustomerListQuery): Promise<CustomerPage>;
  /** POST /workspaces/{id}/customers. */
  createForWorkspace(caller: Caller, workspaceId: string, body: CreateCustomerBody): Promise<CustomerRecord>;
  /** GET /customers: a SUPER_ADMIN every workspace's (or one's), an ADMIN its workspace's. */
  list(actor: Actor, query: CustomerListQuery): Promise<CustomerPage>;
  /** POST /customers. 400 for a workspace that does not exist; 403 for another tenant's. */
  create(caller: Caller, body: CreateGlobalCustomerBody): Promise<CustomerRecord>;
  /** GET /customers/{id}. */
  get(actor: Actor, id: string): Promise<CustomerRecord>;
  /**
   * PUT /customers/{id}: the fields given. A customer made inactive, suspended or pending is
   * signed out everywhere (its sessions end; its access tokens stop working at once).
   */
  update(caller: Caller, id: string, body: UpdateCustomerBody): Promise<CustomerRecord>;
  /** DELETE /customers/{id}: the customer, its sessions, its wallet link and nonces (irreversible). */
  remove(caller: Caller, id: string): Promise<{ message: string }>;
  /** The workspace a customer belongs to (the wallet features' lookup), or null. */
  findCustomer(customerId: string): Promise<{ workspaceId: string } | null>;
}

export interface CustomerAdminDeps {
  store: Store<CustomersRepos>;
  audit: AuditService;
  insertCustomer: InsertCustomer;
}

/** The fields an administrator may change as given (e-mail and names are set apart: normalised, or named in the body type). */
const EDITABLE = [
  'externalId',
  'phoneNumber',
  'dateOfBirth',
  'address',
  'city',
  'state',
  'postalCode',
  'country',
  'status',
  'metadata',
] as const;

export function createCustomerAdmin(deps: CustomerAdminDeps): CustomerAdmin {
  const { store, audit, insertCustomer } = deps;

  /** A customer the actor administers; another tenant's customers do not exist for it (404). */
  async function administered(repos: CustomersRepos, actor: Actor, id: string): Promise<CustomerWithWallet> {
    const scope = adminReadScope(actor);
    const customer = await repos.customers.findById(id);
    if (!customer) throw notFound('Customer');
    if (scope.kind === 'all' || (scope.kind === 'workspace' && customer.workspaceId === scope.workspaceId)) return customer;
    throw notFound('Customer');
  }

  return {
    listForWorkspace: async (actor, workspaceId, query) => {
      assertWorkspaceAdmin(actor, workspaceId);
      const { rows, total } = await store.repos.customers.list(
        { workspaceId, status: query.status, search: query.search },
        query.page,
        query.limit,
      );
      // Customers go with their workspace: a page with any proves it exists; an empty one asks (404).
      if (rows.length === 0) await workspaceOrNotFound(store.repos, workspaceId);
      return { customers: rows.map(toCustomerRecord), pagination: paginationMeta(query.page, query.limit, total) };
    },

    createForWorkspace: async (caller, workspaceId, body) => {
      const actor = requireActor(caller);
      assertWorkspaceAdmin(actor, workspaceId);
      await workspaceOrNotFound(store.repos, workspaceId);
      return toCustomerRecord(await insertCustomer(caller, workspaceId, body, CUSTOMER_AUDIT.create, { createdBy: actor.id }));
    },

    list: async (actor, query) => {
      const scope = adminReadScope(actor);
      if (scope.kind === 'self') return { customers: [], pagination: paginationMeta(query.page, query.limit, 0) };
      if (scope.kind === 'workspace' && query.workspaceId && query.workspaceId !== scope.workspaceId) {
        throw forbidden('Not a member of this workspace');
      }
      const workspaceId = scope.kind === 'workspace' ? scope.workspaceId : query.workspaceId;
      const { rows, total } = await store.repos.customers.list(
        { workspaceId, status: query.status, search: query.search },
        query.page,
        query.limit,
      );
      return { customers: rows.map(toCustomerRecord), pagination: paginationMeta(query.page, query.limit, total) };
    },

    create: async (caller, body) => {
      const actor = requireActor(caller);
      assertWorkspaceAdmin(actor, body.workspaceId);
      if (!(await store.repos.customers.findWorkspace(body.workspaceId))) {
        throw validationError([{ field: 'workspaceId', reason: 'is not an existing workspace' }]);
      }
      const { workspaceId, ...fields } = body;
      return toCustomerRecord(await insertCustomer(caller, workspaceId, fields, CUSTOMER_AUDIT.create, { createdBy: actor.id }));
    },

    get: async (actor, id) => toCustomerRecord(await administered(store.repos, actor, id)),

    update: async (caller, id, body) => {
      const actor = requireActor(caller);
      const problems = fieldProblems(body);
      if (problems.length > 0) throw validationError(problems);
      try {
        const row = await store.transaction(async (repos) => {
          const current = await administered(repos, actor, id);
          await repos.customers.findByIdForUpdate(id);
          const patch: CustomerPatch = {};
          if (body.email !== undefined) patch.email = normalizeEmail(body.email);
          if (body.firstName !== undefined) patch.firstName = body.firstName;
          if (body.lastName !== undefined) patch.lastName = body.lastName;
          for (const key of EDITABLE) {
            if (body[key] !== undefined) (patch as Record<string, unknown>)[key] = body[key];
          }
          if (typeof patch.country === 'string') patch.country = patch.country.toUpperCase();
          if (patch.email && patch.email !== current.email && (await repos.customers.findByEmail(current.workspaceId, patch.email))) {
            throw duplicate('email');
          }
          const next = await repos.customers.update(id, patch);
          const signedOut =
            next.status !== 'active' && current.status === 'active'
              ? await repos.customers.revokeCustomerSessions(id, `customer_${next.status}`)
              : 0;
          const changes = diffChanges(auditedCustomer(current), auditedCustomer(next));
          await audit.record(repos, caller, CUSTOMER_AUDIT.update, {
            resourceId: id,
            workspaceId: current.workspaceId,
            details: `Updated customer ${next.email}: ${Object.keys(changes).join(', ') || 'no change'}`,
            changes,
            ...(signedOut > 0 ? { metadata: { sessionsRevoked: signedOut } } : {}),
          });
          return { ...next, walletAddress: current.walletAddress, walletLinkedAt: current.walletLinkedAt };
        });
        return toCustomerRecord(row);
      } catch (error) {
        const field = duplicateCustomerField(error);
        if (field) throw duplicate(field);
        throw error;
      }
    },

    remove: async (caller, id) => {
      const actor = requireActor(caller);
      return store.transaction(async (repos) => {
        const current = await administered(repos, actor, id);
        await repos.customers.delete(id);
        await audit.record(repos, caller, CUSTOMER_AUDIT.delete, {
          resourceId: id,
          workspaceId: current.workspaceId,
          details: `Deleted customer ${current.email}`,
          changes: diffChanges(auditedCustomer(current), {}),
          ...(current.walletAddress ? { metadata: { walletAddress: current.walletAddress } } : {}),
        });
        return { message: `Customer ${id} deleted` };
      });
    },

    findCustomer: async (customerId) => {
      const workspaceId = await store.repos.customers.workspaceOf(customerId);
      return workspaceId ? { workspaceId } : null;
    },
  };
}
