import {
  AppError,
  type CustomerLoginBody,
  type CustomerMe,
  type CustomerRefreshBody,
  type CustomerRegisterBody,
  type CustomerSession,
  forbidden,
  unauthorized,
  uuidv7,
  validationError,
} from '@holdfast/contracts';
import { clientAddressGroup } from '@holdfast/http-kit';
import type { Logger } from '@holdfast/logging';
import { sha256 } from '@holdfast/secrets';
import type { Store } from '../../db/store.js';
import {
  assertSessionLive,
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
  requireCustomer,
  rotateRefreshToken,
  verifyPassword,
} from '../access/index.js';
import type { AuditService } from '../audit/index.js';
import { normalizeEmail } from '../users/index.js';
import { CUSTOMER_AUDIT, toCustomerMe } from './records.js';
import type { CustomerRow, CustomerWithWallet, WorkspaceRef } from './repository.js';
import { CLOSED_WORKSPACE, type CustomersRepos, duplicate, type InsertCustomer, workspaceOrNotFound } from './shared.js';

/**
 * What a customer does for itself: it signs up and in (public routes of its workspace), then acts
 * with a customer JWT that is valid in its workspace only. Refresh tokens follow the user
 * sessions' model (rotated, single use, reuse revokes the session: access/refresh-tokens.ts).
 * `{id}` of the routes (`ref` here) is the workspace id or slug.
 */
export interface CustomerSessions {
  /** POST /workspaces/{id}/customers/auth/register (201). 409 when the e-mail is taken in the workspace. */
  register(caller: Caller, ref: string, body: CustomerRegisterBody): Promise<CustomerSession>;
  /**
   * POST /workspaces/{id}/customers/auth/login. 401 INVALID_CREDENTIALS for a wrong e-mail or
   * password (and for a customer without a password: one an administrator created); 401 for an
   * account that is not active; 429 with a doubling back-off after 5 failures from one address within 15 minutes.
   */
  login(caller: Caller, ref: string, body: CustomerLoginBody): Promise<CustomerSession>;
  /**
   * POST /workspaces/{id}/customers/auth/refresh: rotates the refresh token (single use; a reused
   * one revokes the session). A token of another workspace's customer is unknown here (401).
   */
  refresh(caller: Caller, ref: string, body: CustomerRefreshBody): Promise<CustomerSession>;
  /** POST /workspaces/{id}/customers/auth/logout: ends the session of this refresh token. Idempotent. */
  logout(caller: Caller, ref: string, body: CustomerRefreshBody): Promise<{ message: string }>;
  /** GET /workspaces/{id}/customers/auth/me. */
  me(caller: Caller, ref: string): Promise<CustomerMe>;
  /** The authenticated customer of the workspace the path names (for the wallet routes). 403 for another workspace's token. */
  customerIn(caller: Caller, ref: string): Promise<CustomerPrincipal>;
  /** The customer behind valid token claims: active, in an open workspace, the token's; null otherwise. */
  customerFor(claims: CustomerClaims): Promise<CustomerPrincipal | null>;
}

export interface CustomerSessionsDeps {
  store: Store<CustomersRepos>;
  audit: AuditService;
  insertCustomer: InsertCustomer;
  tokens: CustomerTokens;
  refreshTokenTtlMs: number;
  logger: Logger;
  /** Keeps the customer, workspace and session behind a customer token between requests (changes drop them at once). */
  principals: Pick<PrincipalCache, 'lookup'>;
}

/** Customer refresh tokens: `hfcr_` + 32 random bytes (user ones are `hfr_`). */
const REFRESH_TOKEN_PREFIX = 'hfcr_';

/** The throttle key of a customer login: the workspace, the account and the client address, hashed (as user logins: no lock-out from elsewhere). */
function loginKey(workspaceId: string, email: string, clientAddress: string | null): string {
  return sha256(`customer:${workspaceId}:${email}|${clientAddress ? clientAddressGroup(clientAddress) : 'unknown'}`);
}

export function createCustomerSessions(deps: CustomerSessionsDeps): CustomerSessions {
  const { store, audit, tokens, insertCustomer } = deps;
  const verifyAgainstNothing = createTimingEqualiser();
  const refreshOptions = { ttlMs: deps.refreshTokenTtlMs, prefix: REFRESH_TOKEN_PREFIX };

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
    register: async (caller, ref, body) => {
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

    login: async (caller, ref, body) => {
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

    refresh: async (caller, ref, body) => {
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

    logout: async (caller, ref, body) => {
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

    me: async (caller, ref) => {
      const principal = await customerIn(caller, ref);
      const customer = await store.repos.customers.findById(principal.id);
      if (!customer) throw unauthorized('The customer behind this token is unknown');
      return toCustomerMe(customer);
    },

    customerIn,

    customerFor: async (claims) => {
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
