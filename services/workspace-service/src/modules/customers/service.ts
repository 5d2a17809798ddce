import {
  AppError,
  type CreateCustomerBody,
  type CreateGlobalCustomerBody,
  type CustomerListQuery,
  type CustomerLoginBody,
  type CustomerMe,
  type CustomerRecord,
  type CustomerRefreshBody,
  type CustomerRegisterBody,
  type CustomerSession,
  conflict,
  type FieldError,
  forbidden,
  notFound,
  paginationMeta,
  type UpdateCustomerBody,
  unauthorized,
  uuidv7,
  validationError,
  type WorkspaceCustomerListQuery,
} from '@holdfast/contracts';
import { clientAddressGroup } from '@holdfast/http-kit';
import type { Logger } from '@holdfast/logging';
import { sha256 } from '@holdfast/secrets';
import type { Store } from '../../db/store.js';
import {
  type Actor,
  adminReadScope,
  assertSessionLive,
  assertWorkspaceAdmin,
  type Caller,
  type CustomerClaims,
  type CustomerPrincipal,
  type CustomerTokens,
  createTimingEqualiser,
  hashPassword,
  issueRefreshToken,
  loginLockedError,
  type PrincipalCache,
  passwordPolicyErrors,
  refreshTokenHash,
  refuseRefresh,
  requireActor,
  requireCustomer,
  rotateRefreshToken,
  verifyPassword,
} from '../access/index.js';
import { type AuditAction, type AuditRepository, type AuditService, diffChanges } from '../audit/index.js';
import { type RemoteTasksRepository, task } from '../remote-tasks/index.js';
import type { SessionsRepository } from '../sessions/index.js';
import { normalizeEmail } from '../users/index.js';
import type { WorkspacesRepository } from '../workspaces/index.js';
import { auditedCustomer, CUSTOMER_AUDIT, toCustomerMe, toCustomerRecord } from './records.js';
import {
  type CustomerPatch,
  type CustomerRow,
  type CustomersRepository,
  type CustomerWithWallet,
  duplicateCustomerField,
  type WorkspaceRef,
} from './repository.js';

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

export interface CustomersDeps {
  store: Store<CustomersRepos>;
  audit: AuditService;
  tokens: CustomerTokens;
  refreshTokenTtlMs: number;
  logger: Logger;
  /** Keeps the customer, workspace and session behind a customer token between requests (changes drop them at once). */
  principals: Pick<PrincipalCache, 'lookup'>;
  /** Runs queued remote tasks right after the commit (the new customer's wallet step); the runner retries what fails. */
  tasks?: { attempt: (ids: string[]) => Promise<void> };
}

/** Customer refresh tokens: `hfcr_` + 32 random bytes (user ones are `hfr_`). */
const REFRESH_TOKEN_PREFIX = 'hfcr_';
/** Largest `metadata` object, serialised (as for workspaces). */
export const CUSTOMER_METADATA_MAX_BYTES = 16 * 1024;
/** Workspaces whose customers may not sign in (or stay signed in). */
const CLOSED_WORKSPACE = new Set(['inactive', 'suspended']);

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

/** The throttle key of a customer login: the workspace, the account and the client address, hashed (as user logins: no lock-out from elsewhere). */
function loginKey(workspaceId: string, email: string, clientAddress: string | null): string {
  return sha256(`customer:${workspaceId}:${email}|${clientAddress ? clientAddressGroup(clientAddress) : 'unknown'}`);
}

function fieldProblems(body: { metadata?: Record<string, unknown> | undefined; dateOfBirth?: string | null | undefined }): FieldError[] {
  const problems: FieldError[] = [];
  if (body.metadata && Buffer.byteLength(JSON.stringify(body.metadata)) > CUSTOMER_METADATA_MAX_BYTES) {
    problems.push({ field: 'metadata', reason: `must be at most ${CUSTOMER_METADATA_MAX_BYTES} bytes as JSON` });
  }
  if (body.dateOfBirth && body.dateOfBirth > new Date().toISOString().slice(0, 10)) {
    problems.push({ field: 'dateOfBirth', reason: 'must not be in the future' });
  }
  return problems;
}

function duplicate(field: 'email' | 'externalId'): AppError {
  return conflict(
    field === 'email'
      ? 'A customer with this e-mail already exists in the workspace'
      : 'A customer with this externalId already exists in the workspace',
    { field },
  );
}

/**
 * A workspace's customers: administered by its ADMINs (and SUPER_ADMINs), and signing themselves
 * up and in with a customer JWT that is valid in their workspace only. Refresh tokens follow the
 * user sessions' model (rotated, single use, reuse revokes the session: access/refresh-tokens.ts).
 */
export function createCustomersService(deps: CustomersDeps) {
  const { store, audit, tokens } = deps;
  const verifyAgainstNothing = createTimingEqualiser();
  const refreshOptions = { ttlMs: deps.refreshTokenTtlMs, prefix: REFRESH_TOKEN_PREFIX };

  // ---- who may see what ----------------------------------------------------------------------

  /** A customer the actor administers; another tenant's customers do not exist for it (404). */
  async function administered(repos: CustomersRepos, actor: Actor, id: string): Promise<CustomerWithWallet> {
    const scope = adminReadScope(actor);
    const customer = await repos.customers.findById(id);
    if (!customer) throw notFound('Customer');
    if (scope.kind === 'all' || (scope.kind === 'workspace' && customer.workspaceId === scope.workspaceId)) return customer;
    throw notFound('Customer');
  }

  async function workspaceOrNotFound(repos: CustomersRepos, id: string): Promise<WorkspaceRef> {
    const workspace = await repos.customers.findWorkspace(id);
    if (!workspace) throw notFound('Workspace');
    return workspace;
  }

  /** The workspace a public customer route names (id or slug), open for its customers. */
  async function openWorkspace(ref: string): Promise<WorkspaceRef> {
    const workspace = await workspaceOrNotFound(store.repos, ref);
    if (CLOSED_WORKSPACE.has(workspace.status)) throw forbidden(`The workspace is ${workspace.status}: its customers cannot sign in`);
    return workspace;
  }

  /** The authenticated customer, if its token is for the workspace the path names (403 otherwise). */
  async function customerIn(caller: Caller, ref: string): Promise<CustomerPrincipal> {
    const customer = requireCustomer(caller);
    const workspace = await store.repos.customers.findWorkspace(ref);
    if (workspace?.id !== customer.workspaceId) throw forbidden('This customer token is valid only in its own workspace');
    return customer;
  }

  // ---- writes --------------------------------------------------------------------------------

  async function insertCustomer(
    caller: Caller,
    workspaceId: string,
    body: Omit<CreateCustomerBody, 'firstName' | 'lastName'> & { firstName?: string | undefined; lastName?: string | undefined },
    what: AuditAction,
    extra: { passwordHash?: string; createdBy: string | null },
  ): Promise<CustomerWithWallet> {
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
  }

  // ---- sessions ------------------------------------------------------------------------------

  async function openSession(repos: CustomersRepos, caller: Caller, customer: CustomerRow | CustomerWithWallet) {
    const session = await repos.customers.createSession({
      id: uuidv7(),
      customerId: customer.id,
      ipAddress: caller.ipAddress,
      userAgent: caller.userAgent,
    });
    const issued = await issueRefreshToken(repos.customers, session.id, refreshOptions);
    return { session, ...issued };
  }

  function sessionResult(customer: CustomerWithWallet, sessionId: string, refreshToken: string): CustomerSession {
    return {
      customer: {
        id: customer.id,
        email: customer.email,
        firstName: customer.firstName,
        lastName: customer.lastName,
        walletAddress: customer.walletAddress,
        status: customer.status,
      },
      accessToken: tokens.sign({ sub: customer.id, sid: sessionId, wid: customer.workspaceId, typ: 'customer_access' }),
      refreshToken,
      expiresIn: tokens.expiresInSeconds,
    };
  }

  return {
    // ---- administration (ADMIN of the workspace or SUPER_ADMIN) -------------------------------

    /** GET /workspaces/{id}/customers. */
    listForWorkspace: async (actor: Actor, workspaceId: string, query: WorkspaceCustomerListQuery) => {
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

    /** POST /workspaces/{id}/customers. */
    createForWorkspace: async (caller: Caller, workspaceId: string, body: CreateCustomerBody): Promise<CustomerRecord> => {
      const actor = requireActor(caller);
      assertWorkspaceAdmin(actor, workspaceId);
      await workspaceOrNotFound(store.repos, workspaceId);
      return toCustomerRecord(await insertCustomer(caller, workspaceId, body, CUSTOMER_AUDIT.create, { createdBy: actor.id }));
    },

    /** GET /customers: a SUPER_ADMIN every workspace's (or one's), an ADMIN its workspace's. */
    list: async (actor: Actor, query: CustomerListQuery) => {
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

    /** POST /customers. 400 for a workspace that does not exist; 403 for another tenant's. */
    create: async (caller: Caller, body: CreateGlobalCustomerBody): Promise<CustomerRecord> => {
      const actor = requireActor(caller);
      assertWorkspaceAdmin(actor, body.workspaceId);
      if (!(await store.repos.customers.findWorkspace(body.workspaceId))) {
        throw validationError([{ field: 'workspaceId', reason: 'is not an existing workspace' }]);
      }
      const { workspaceId, ...fields } = body;
      return toCustomerRecord(await insertCustomer(caller, workspaceId, fields, CUSTOMER_AUDIT.create, { createdBy: actor.id }));
    },

    /** GET /customers/{id}. */
    get: async (actor: Actor, id: string): Promise<CustomerRecord> => toCustomerRecord(await administered(store.repos, actor, id)),

    /**
     * PUT /customers/{id}: the fields given. A customer made inactive, suspended or pending is
     * signed out everywhere (its sessions end; its access tokens stop working at once).
     */
    update: async (caller: Caller, id: string, body: UpdateCustomerBody): Promise<CustomerRecord> => {
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

    /** DELETE /customers/{id}: the customer, its sessions, its wallet link and nonces (irreversible). */
    remove: async (caller: Caller, id: string): Promise<{ message: string }> => {
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

    /** The workspace a customer belongs to (the wallet features' lookup), or null. */
    findCustomer: async (customerId: string): Promise<{ workspaceId: string } | null> => {
      const workspaceId = await store.repos.customers.workspaceOf(customerId);
      return workspaceId ? { workspaceId } : null;
    },

    // ---- self-service (public, or with a customer token) --------------------------------------

    /** POST /workspaces/{id}/customers/auth/register (201). 409 when the e-mail is taken in the workspace. */
    register: async (caller: Caller, ref: string, body: CustomerRegisterBody): Promise<CustomerSession> => {
      const workspace = await openWorkspace(ref);
      const problems = passwordPolicyErrors(body.password, 'password');
      if (problems.length > 0) throw validationError(problems);
      if (await store.repos.customers.findByEmail(workspace.id, normalizeEmail(body.email))) throw duplicate('email');
      const passwordHash = await hashPassword(body.password);
      const customer = await insertCustomer(
        caller,
        workspace.id,
        { email: body.email, firstName: body.firstName, lastName: body.lastName },
        CUSTOMER_AUDIT.register,
        { passwordHash, createdBy: null },
      );
      const opened = await store.transaction((repos) => openSession(repos, caller, customer));
      return sessionResult(customer, opened.session.id, opened.refreshToken);
    },

    /**
     * POST /workspaces/{id}/customers/auth/login. 401 INVALID_CREDENTIALS for a wrong e-mail or
     * password (and for a customer without a password: one an administrator created); 401 for an
     * account that is not active; 429 with a doubling back-off after 5 failures from one address within 15 minutes.
     */
    login: async (caller: Caller, ref: string, body: CustomerLoginBody): Promise<CustomerSession> => {
      const workspace = await openWorkspace(ref);
      const email = normalizeEmail(body.email);
      const key = loginKey(workspace.id, email, caller.ipAddress);
      const refuse = async (error: AppError, customer?: CustomerWithWallet) => {
        await audit.recordFailure(caller, CUSTOMER_AUDIT.login, {
          userId: null,
          workspaceId: workspace.id,
          resourceId: null,
          errorMessage: error.message,
          statusCode: error.statusCode,
          errorCode: error.code,
          metadata: { email, ...(customer ? { customerId: customer.id } : {}) },
        });
        return error;
      };
      const lockedUntil = await store.repos.sessions.loginLockedUntil(key);
      if (lockedUntil) throw await refuse(loginLockedError(lockedUntil));
      const customer = await store.repos.customers.findByEmail(workspace.id, email);
      const passwordOk = customer?.passwordHash ? await verifyPassword(customer.passwordHash, body.password) : false;
      if (!customer?.passwordHash) await verifyAgainstNothing(body.password);
      if (!customer || !passwordOk) {
        await store.repos.sessions.recordLoginFailure(key);
        throw await refuse(new AppError('INVALID_CREDENTIALS', 'Invalid e-mail or password'), customer);
      }
      if (customer.status !== 'active') {
        throw await refuse(
          new AppError('UNAUTHORIZED', `The customer account is ${customer.status}`, { reason: `account_${customer.status}` }),
          customer,
        );
      }
      await store.repos.sessions.clearLoginFailures(key);
      return store.transaction(async (repos) => {
        await repos.customers.touchLogin(customer.id);
        const opened = await openSession(repos, caller, customer);
        await audit.record(repos, caller, CUSTOMER_AUDIT.login, {
          userId: null,
          workspaceId: workspace.id,
          resourceId: opened.session.id,
          details: `Customer ${email} logged in`,
          metadata: { customerId: customer.id },
        });
        return sessionResult(customer, opened.session.id, opened.refreshToken);
      });
    },

    /**
     * POST /workspaces/{id}/customers/auth/refresh: rotates the refresh token (single use; a reused
     * one revokes the session). A token of another workspace's customer is unknown here (401).
     */
    refresh: async (caller: Caller, ref: string, body: CustomerRefreshBody): Promise<CustomerSession> => {
      const workspace = await workspaceOrNotFound(store.repos, ref);
      const outcome = await store.transaction(async (repos) => {
        const found = await repos.customers.findTokenForUpdate(refreshTokenHash(body.refreshToken));
        const mine = found?.workspaceId === workspace.id ? found : undefined;
        const refusal = await refuseRefresh(repos.customers, mine, 'log in again');
        if (refusal) {
          if (refusal.reuse)
            deps.logger.warn({ customerSessionId: mine?.session.id }, 'customer refresh token reuse detected; session revoked');
          return { error: refusal.error, customerId: mine?.session.customerId };
        }
        const { session } = mine!;
        const customer = await repos.customers.findById(session.customerId);
        if (customer?.status !== 'active' || CLOSED_WORKSPACE.has(workspace.status)) {
          await repos.customers.revokeSession(session.id, 'account_unavailable');
          return { error: unauthorized('The customer account or its workspace is not active'), customerId: session.customerId };
        }
        const issued = await rotateRefreshToken(repos.customers, mine!, refreshOptions);
        await repos.customers.touchSession(session.id);
        await audit.record(repos, caller, CUSTOMER_AUDIT.refresh, {
          userId: null,
          workspaceId: workspace.id,
          resourceId: session.id,
          details: `Customer ${customer.email} refreshed its session`,
          metadata: { customerId: customer.id },
        });
        return { result: sessionResult(customer, session.id, issued.refreshToken) };
      });
      if (outcome.result) return outcome.result;
      const error = outcome.error!;
      await audit.recordFailure(caller, CUSTOMER_AUDIT.refresh, {
        userId: null,
        workspaceId: outcome.customerId ? workspace.id : null,
        resourceId: null,
        errorMessage: error.message,
        statusCode: error.statusCode,
        errorCode: error.code,
        ...(outcome.customerId ? { metadata: { customerId: outcome.customerId } } : {}),
      });
      throw error;
    },

    /** POST /workspaces/{id}/customers/auth/logout: ends the session of this refresh token. Idempotent. */
    logout: async (caller: Caller, ref: string, body: CustomerRefreshBody): Promise<{ message: string }> => {
      const workspace = await workspaceOrNotFound(store.repos, ref);
      await store.transaction(async (repos) => {
        const found = await repos.customers.findTokenForUpdate(refreshTokenHash(body.refreshToken));
        const mine = found?.workspaceId === workspace.id ? found : undefined;
        if (mine && !mine.session.revokedAt) await repos.customers.revokeSession(mine.session.id, 'logout');
        await audit.record(repos, caller, CUSTOMER_AUDIT.logout, {
          userId: null,
          workspaceId: mine ? workspace.id : null,
          resourceId: mine?.session.id ?? null,
          details: mine ? 'Customer logged out' : 'Customer logout with an unknown or already ended session',
          ...(mine ? { metadata: { customerId: mine.session.customerId } } : {}),
        });
      });
      return { message: 'Logged out; the refresh token no longer works' };
    },

    /** GET /workspaces/{id}/customers/auth/me. */
    me: async (caller: Caller, ref: string): Promise<CustomerMe> => {
      const principal = await customerIn(caller, ref);
      const customer = await store.repos.customers.findById(principal.id);
      if (!customer) throw unauthorized('The customer behind this token is unknown');
      return toCustomerMe(customer);
    },

    /** The authenticated customer of the workspace the path names (for the wallet routes). 403 for another workspace's token. */
    customerIn,

    /** The customer behind valid token claims: active, in an open workspace, the token's; null otherwise. */
    customerFor: async (claims: CustomerClaims): Promise<CustomerPrincipal | null> => {
      const row = await deps.principals.lookup(
        `customer ${claims.sub} ${claims.sid}`,
        () => store.repos.customers.findPrincipal(claims.sub, claims.sid),
        (found) => [`customer:${found.id}`, `customer-session:${claims.sid}`, `workspace:${found.workspaceId}`],
      );
      if (row?.status !== 'active' || row.workspaceId !== claims.wid || CLOSED_WORKSPACE.has(row.workspaceStatus)) return null;
      assertSessionLive(
        { exists: row.sessionId !== null, revokedAt: row.sessionRevokedAt, revokedReason: row.sessionRevokedReason },
        'customer access',
      );
      return { id: row.id, email: row.email, workspaceId: row.workspaceId, sessionId: claims.sid };
    },
  };
}

export type CustomersService = ReturnType<typeof createCustomersService>;
