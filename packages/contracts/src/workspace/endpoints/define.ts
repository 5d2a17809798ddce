import { defineEndpoint, type Endpoint, type RequestLine, type ResourceEntry, requestOf } from '../../common/endpoint.js';
import type { OperationTier } from '../../payments/endpoint.js';
import type { AuditAction } from '../audit-actions.js';
import { ADMIN_ROLES, type UserRole } from '../identity.js';

/*
 * The Workspace API, one entry per endpoint (method, path, documentation, schemas, answers), one
 * file per resource, mirroring the service's modules (services/workspace-service/src/modules/
 * <resource>/routes.ts serves the entries of <resource>.ts; storage.ts holds the avatar files).
 * The versioned endpoints are served under `/api/v1` (their deprecated copies under `/api`); the
 * host-root ones at the root. The service serves each with its handler (`serveRoutes` of
 * @holdfast/http-kit), so a route cannot drift from this catalogue; the OpenAPI description is
 * built from it.
 */
/** OpenAPI security of routes that need a Workspace access token. */
export const BEARER = [{ bearer: [] }];
/** OpenAPI security of the customer self-service routes (a customer access token). */
export const CUSTOMER_BEARER = [{ customerBearer: [] }];
/** OpenAPI security of service-to-service routes (`X-Internal-API-Key`). */
export const INTERNAL_KEY = [{ internalApiKey: [] }];
/** OpenAPI security of the workspace-key routes (`X-API-Key`: a Payments API key of the workspace). */
export const WORKSPACE_KEY = [{ workspaceKey: [] }];

/**
 * Who may call a Workspace API endpoint: `public` (no credential), `user` (a user access token),
 * `customer` (a customer access token of the workspace), `internal` (`X-Internal-API-Key`, Holdfast
 * processes) or `workspace_key` (a Payments API key of the workspace in `X-API-Key`).
 */
export type WorkspaceAccess = 'public' | 'user' | 'customer' | 'internal' | 'workspace_key';
export const WORKSPACE_ACCESS = ['public', 'user', 'customer', 'internal', 'workspace_key'] as const satisfies readonly WorkspaceAccess[];

/** The OpenAPI security of each kind of caller (none for a public endpoint). */
const SECURITY_OF: Record<WorkspaceAccess, Endpoint['security']> = {
  public: undefined,
  user: BEARER,
  customer: CUSTOMER_BEARER,
  internal: INTERNAL_KEY,
  workspace_key: WORKSPACE_KEY,
};

/**
 * A Workspace API endpoint: the contract of `Endpoint` plus who may call it (`access`, and `roles`
 * among users: 403 for the others), its rate-limit tier (absent: `standard`) and the action its
 * audit entries record (`audit`, on every mutating endpoint). The service answers 401 and 403 from
 * these before the body is parsed and documents them, so `errors` lists only the other statuses.
 */
export interface WorkspaceEndpoint extends Endpoint {
  access: WorkspaceAccess;
  roles?: readonly UserRole[];
  tier?: OperationTier;
  audit?: AuditAction;
}

type Declared = Omit<WorkspaceEndpoint, 'security' | 'access'> & Partial<Pick<WorkspaceEndpoint, 'access'>>;

/** A Workspace API endpoint: it needs a user access token unless `access` says otherwise. */
const define = <const E extends Declared>(e: E) => {
  const access = e.access ?? 'user';
  const security = SECURITY_OF[access];
  return defineEndpoint({ ...(security ? { security } : {}), access, ...e } as E & { access: WorkspaceAccess });
};

type Entry = Omit<Declared, 'method' | 'path'>;

/**
 * The endpoints of one resource: `shared` holds what they all say (their `tags`, at least), and
 * each entry names its request line and the rest; an entry's own field wins over a shared one.
 * `const endpoint = resource({ tags: ['users'] })`, then `endpoint('GET /users/:id', {...})`.
 */
export const resource =
  <const S extends Partial<Entry>>(shared: S) =>
  <const L extends RequestLine, const E extends Omit<Entry, keyof S> & Partial<Pick<Entry, keyof S & keyof Entry>>>(line: L, entry: E) =>
    // The spread of generic objects is typed as their plain intersection: the cast says which fields win.
    define({ ...requestOf(line), ...shared, ...entry } as unknown as ResourceEntry<L, S, E> & Declared) as ResourceEntry<L, S, E> & {
      access: WorkspaceAccess;
    };

/** A change only administrators make (`ADMIN_ROLES`: a CLIENT gets 403), at the admin tier. */
export const ADMIN_CHANGE = { roles: ADMIN_ROLES, tier: 'admin' } as const;

/** The customer self-service routes (customers, wallets): the token they need. */
export const CUSTOMER_TOKEN =
  'Needs the customer access token of this workspace (`Authorization: Bearer <accessToken>` from register, login or refresh): a ' +
  "token of another workspace's customer is 403, a user's token 401.";
