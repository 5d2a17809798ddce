import type {
  CreateWebhookBody,
  CreateWorkspaceBody,
  DeliveryLogsQuery,
  EventTypeInfo,
  ListWebhooksQuery,
  ReplayResult,
  ReplayWebhookBody,
  ResponseMeta,
  SandboxCredential,
  SessionTokens,
  UpdateWebhookBody,
  UserRecord,
  WebhookDelivery,
  WebhookDeliveryLog,
  WebhookDeliveryLogList,
  WebhookSubscription,
  WebhookSubscriptionWithSecret,
  WorkspaceListQuery,
  WorkspaceRecord,
} from '@holdfast/contracts';
import { AuthError } from './errors.js';
import type { paths as WorkspacePaths } from './generated/workspace-openapi.js';
import { dataOf, type OperationAt, operationCaller, type RequestInit } from './operations.js';

type JsonBody<P extends keyof WorkspacePaths, M extends 'post' | 'put' | 'patch'> = NonNullable<
  RequestInit<OperationAt<WorkspacePaths, P, M>>['body']
>;
type Query<P extends keyof WorkspacePaths, M extends 'get'> = NonNullable<RequestInit<OperationAt<WorkspacePaths, P, M>>['query']>;

import { type Page, PageIterator } from './pagination.js';
import { type ApiRequest, createTransport, type TokenSource, type TransportOptions } from './transport.js';

export type {
  ReplayResult,
  ReplayWebhookBody,
  WebhookDelivery,
  WebhookDeliveryLog,
  WebhookSubscription,
  WebhookSubscriptionWithSecret,
} from '@holdfast/contracts';

/** Sign in with a token you already hold (no refresh), or with e-mail and password (refreshed for you). */
export type WorkspaceClientOptions = TransportOptions & ({ accessToken: string } | { email: string; password: string });

interface Envelope<T> {
  success: true;
  data: T;
  meta: ResponseMeta;
}

/**
 * The Workspace API client (`{workspace_host}`, e.g. http://127.0.0.1:3002): signs in, refreshes
 * the session before the access token expires or after a `401 TOKEN_EXPIRED` (the refresh token is
 * single use, so one refresh runs at a time), unwraps the envelope. docs/sdk.md.
 */
export class WorkspaceClient {
  readonly me;
  readonly workspaces;
  readonly sandboxCredentials;
  readonly webhooks;
  readonly request;
  readonly oauthClients;
  readonly customers;
  readonly customerAuth;
  readonly auditLogs;

  readonly #transport;
  readonly #options: WorkspaceClientOptions;
  #session: { accessToken: string; refreshToken?: string; refreshAtMs: number } | undefined;
  #signingIn: Promise<void> | undefined;

  constructor(options: WorkspaceClientOptions) {
    if (!options.baseUrl) throw new TypeError('WorkspaceClient needs baseUrl');
    this.#options = options;
    this.#transport = createTransport(options);
    if ('accessToken' in options) this.#session = { accessToken: options.accessToken, refreshAtMs: Number.POSITIVE_INFINITY };
    const bearer: TokenSource = {
      token: () => this.#accessToken(),
      ...('email' in options ? { renew: (rejected: string) => this.#renew(rejected) } : {}),
    };
    const call = async <T>(request: Omit<ApiRequest, 'auth' | 'retry'> & { retry?: boolean }) => {
      const answer = await this.#transport.send<Envelope<T>>({ retry: request.method === 'GET', ...request, auth: bearer });
      return answer.body;
    };
    const data = async <T>(request: Omit<ApiRequest, 'auth' | 'retry'> & { retry?: boolean }) => (await call<T>(request)).data;
    const v1 = '/api/v1';
    const id = (value: string) => encodeURIComponent(value);
    const hooks = (workspaceId: string) => `${v1}/workspaces/${id(workspaceId)}/webhooks`;

    /**
     * Any operation of the Workspace API, typed from the OpenAPI document (ADR 59), with the
     * session of this client: `request('get', '/api/v1/workspaces/{id}/audit-logs', { params: { id } })`.
     * Answers the envelope as the API writes it (`{success, data, meta}`).
     */
    this.request = operationCaller<WorkspacePaths>(this.#transport, bearer);

    const r = this.request;
    /** A paged envelope answer as the other lists: `for await` over every page. */
    const paged = <E extends { data: unknown[]; meta?: { pagination?: Page<unknown>['pagination'] } }>(
      fetchPage: (page: number) => Promise<E>,
    ) =>
      new PageIterator<E['data'][number]>(async (page) => {
        const answer = await fetchPage(page);
        const pagination = answer.meta?.pagination ?? { page, limit: answer.data.length, total: answer.data.length, totalPages: 1 };
        return { data: answer.data as E['data'][number][], pagination };
      });
    const ws = (workspaceId: string) => ({ id: workspaceId });

    /** The workspace's OAuth clients of the Payments API (its platforms'); the secret is shown once, by create. */
    this.oauthClients = {
      list: (workspaceId: string) => dataOf(r('get', '/api/v1/workspaces/{id}/oauth/clients', { params: ws(workspaceId) })),
      create: (workspaceId: string, body: JsonBody<'/api/v1/workspaces/{id}/oauth/clients', 'post'>) =>
        dataOf(r('post', '/api/v1/workspaces/{id}/oauth/clients', { params: ws(workspaceId), body })),
      get: (workspaceId: string, clientId: string) =>
        dataOf(r('get', '/api/v1/workspaces/{id}/oauth/clients/{clientId}', { params: { id: workspaceId, clientId } })),
      update: (workspaceId: string, clientId: string, body: JsonBody<'/api/v1/workspaces/{id}/oauth/clients/{clientId}', 'patch'>) =>
        dataOf(r('patch', '/api/v1/workspaces/{id}/oauth/clients/{clientId}', { params: { id: workspaceId, clientId }, body })),
      delete: async (workspaceId: string, clientId: string): Promise<void> => {
        await r('delete', '/api/v1/workspaces/{id}/oauth/clients/{clientId}', { params: { id: workspaceId, clientId } });
      },
      revokeTokens: (workspaceId: string, clientId: string) =>
        dataOf(r('post', '/api/v1/workspaces/{id}/oauth/clients/{clientId}/revoke-tokens', { params: { id: workspaceId, clientId } })),
      stats: (workspaceId: string, clientId: string) =>
        dataOf(r('get', '/api/v1/workspaces/{id}/oauth/clients/{clientId}/stats', { params: { id: workspaceId, clientId } })),
    };

    /** The workspace's customers, for its administrators. */
    this.customers = {
      /** Every customer of the workspace matching the filters, newest first, page after page. */
      list: (workspaceId: string, filters: Partial<Query<'/api/v1/workspaces/{id}/customers', 'get'>> = {}) =>
        paged((page) =>
          r('get', '/api/v1/workspaces/{id}/customers', {
            params: ws(workspaceId),
            query: { limit: 100, ...filters, page } as Query<'/api/v1/workspaces/{id}/customers', 'get'>,
          }),
        ),
      create: (workspaceId: string, body: JsonBody<'/api/v1/workspaces/{id}/customers', 'post'>) =>
        dataOf(r('post', '/api/v1/workspaces/{id}/customers', { params: ws(workspaceId), body })),
      get: (customerId: string) => dataOf(r('get', '/api/v1/customers/{id}', { params: { id: customerId } })),
      update: (customerId: string, body: JsonBody<'/api/v1/customers/{id}', 'put'>) =>
        dataOf(r('put', '/api/v1/customers/{id}', { params: { id: customerId }, body })),
      delete: async (customerId: string): Promise<void> => {
        await r('delete', '/api/v1/customers/{id}', { params: { id: customerId } });
      },
    };

    /**
     * A workspace's customers' own self-service (`{id}`: the workspace id or slug): register and log
     * in without a session, then each call with the customer's own access token.
     */
    this.customerAuth = (workspace: string) => {
      const base = { id: workspace };
      return {
        register: (body: JsonBody<'/api/v1/workspaces/{id}/customers/auth/register', 'post'>) =>
          dataOf(r('post', '/api/v1/workspaces/{id}/customers/auth/register', { params: base, body, accessToken: null })),
        login: (body: JsonBody<'/api/v1/workspaces/{id}/customers/auth/login', 'post'>) =>
          dataOf(r('post', '/api/v1/workspaces/{id}/customers/auth/login', { params: base, body, accessToken: null })),
        refresh: (body: JsonBody<'/api/v1/workspaces/{id}/customers/auth/refresh', 'post'>) =>
          dataOf(r('post', '/api/v1/workspaces/{id}/customers/auth/refresh', { params: base, body, accessToken: null })),
        logout: (accessToken: string, body: JsonBody<'/api/v1/workspaces/{id}/customers/auth/logout', 'post'>) =>
          dataOf(r('post', '/api/v1/workspaces/{id}/customers/auth/logout', { params: base, body, accessToken })),
        me: (accessToken: string) => dataOf(r('get', '/api/v1/workspaces/{id}/customers/auth/me', { params: base, accessToken })),
        walletNonce: (accessToken: string, body: JsonBody<'/api/v1/workspaces/{id}/customers/auth/wallet-nonce', 'post'>) =>
          dataOf(r('post', '/api/v1/workspaces/{id}/customers/auth/wallet-nonce', { params: base, body, accessToken })),
        linkWallet: (accessToken: string, body: JsonBody<'/api/v1/workspaces/{id}/customers/auth/link-wallet', 'post'>) =>
          dataOf(r('post', '/api/v1/workspaces/{id}/customers/auth/link-wallet', { params: base, body, accessToken })),
        walletBalances: (accessToken: string) =>
          dataOf(r('get', '/api/v1/workspaces/{id}/customers/auth/wallet-balances', { params: base, accessToken })),
      };
    };

    /** The workspace's audit log, newest first, page after page. */
    this.auditLogs = {
      list: (workspaceId: string, filters: Partial<Query<'/api/v1/workspaces/{id}/audit-logs', 'get'>> = {}) =>
        paged((page) =>
          r('get', '/api/v1/workspaces/{id}/audit-logs', {
            params: ws(workspaceId),
            query: { limit: 100, ...filters, page } as Query<'/api/v1/workspaces/{id}/audit-logs', 'get'>,
          }),
        ),
    };

    /** The signed-in user. */
    this.me = (): Promise<UserRecord> => data({ method: 'GET', path: '/identity/me' });

    this.workspaces = {
      /** A SUPER_ADMIN sees every workspace, an ADMIN its own; page after page. */
      list: (filters: Partial<WorkspaceListQuery> = {}) =>
        new PageIterator<WorkspaceRecord>(async (page) => {
          const answer = await call<WorkspaceRecord[]>({
            method: 'GET',
            path: `${v1}/workspaces`,
            query: { ...filters, page, limit: filters.limit ?? 100 },
          });
          const pagination = answer.meta.pagination ?? { page, limit: answer.data.length, total: answer.data.length, totalPages: 1 };
          return { data: answer.data, pagination };
        }, filters.page ?? 1),
      /** The caller's own workspace. */
      mine: (): Promise<WorkspaceRecord> => data({ method: 'GET', path: `${v1}/workspaces/me` }),
      get: (workspaceId: string): Promise<WorkspaceRecord> => data({ method: 'GET', path: `${v1}/workspaces/${id(workspaceId)}` }),
      create: (body: CreateWorkspaceBody): Promise<WorkspaceRecord> => data({ method: 'POST', path: `${v1}/workspaces`, body }),
    };

    this.sandboxCredentials = {
      /** A platform for the workspace with a v1 API key and a v2 OAuth client; the secrets are shown only here. */
      create: (workspaceId: string): Promise<SandboxCredential> =>
        data({ method: 'POST', path: `${v1}/workspaces/${id(workspaceId)}/sandbox-credentials`, body: {} }),
    };

    this.webhooks = {
      eventTypes: (workspaceId: string): Promise<EventTypeInfo[]> => data({ method: 'GET', path: `${hooks(workspaceId)}/events/types` }),
      list: (workspaceId: string, query: Partial<ListWebhooksQuery> = {}): Promise<WebhookSubscription[]> =>
        data({ method: 'GET', path: hooks(workspaceId), query }),
      /** Subscribes a URL; the answer's `secret` is shown only here. */
      create: (workspaceId: string, body: CreateWebhookBody): Promise<WebhookSubscriptionWithSecret> =>
        data({ method: 'POST', path: hooks(workspaceId), body }),
      get: (workspaceId: string, webhookId: string): Promise<WebhookSubscription> =>
        data({ method: 'GET', path: `${hooks(workspaceId)}/${id(webhookId)}` }),
      update: (workspaceId: string, webhookId: string, body: UpdateWebhookBody): Promise<WebhookSubscription> =>
        data({ method: 'PATCH', path: `${hooks(workspaceId)}/${id(webhookId)}`, body }),
      delete: async (workspaceId: string, webhookId: string): Promise<void> => {
        await call({ method: 'DELETE', path: `${hooks(workspaceId)}/${id(webhookId)}` });
      },
      /**
       * Every delivery attempt to the subscription, newest first, as the other lists: `for await`
       * walks page after page (the API's limit/offset), `firstPage()` answers the first with its total.
       */
      deliveryLogs: (workspaceId: string, webhookId: string, query: Omit<Partial<DeliveryLogsQuery>, 'offset'> = {}) => {
        const limit = query.limit ?? 100;
        return new PageIterator<WebhookDeliveryLog>(async (page) => {
          const answer = await data<WebhookDeliveryLogList>({
            method: 'GET',
            path: `${hooks(workspaceId)}/${id(webhookId)}/delivery-logs`,
            query: { ...query, limit, offset: (page - 1) * limit },
          });
          return {
            data: answer.logs,
            pagination: { page, limit, total: answer.total, totalPages: Math.max(1, Math.ceil(answer.total / limit)) },
          };
        });
      },
      /** Queues one delivery (a `deliveryId` of the logs) for an attempt now, with the same delivery id. */
      resend: (workspaceId: string, webhookId: string, deliveryId: string): Promise<WebhookDelivery> =>
        data({ method: 'POST', path: `${hooks(workspaceId)}/${id(webhookId)}/deliveries/${id(deliveryId)}/resend`, body: {} }),
      /** Queues the events of `[from, to)` the subscription matches (at most 5,000 per call; `resumeFrom` continues). */
      replay: (workspaceId: string, webhookId: string, body: ReplayWebhookBody): Promise<ReplayResult> =>
        data({ method: 'POST', path: `${hooks(workspaceId)}/${id(webhookId)}/replay`, body }),
      /** Starts a rotation: the answer holds the new secret; deliveries are signed with both until `completeRotation`. */
      rotateSecret: (workspaceId: string, webhookId: string): Promise<WebhookSubscriptionWithSecret> =>
        data({ method: 'POST', path: `${hooks(workspaceId)}/${id(webhookId)}/rotate-secret`, body: {} }),
      completeRotation: (workspaceId: string, webhookId: string): Promise<WebhookSubscription> =>
        data({ method: 'POST', path: `${hooks(workspaceId)}/${id(webhookId)}/complete-rotation`, body: {} }),
      /** Sends one signed `webhook.test` delivery now and answers how it went. */
      test: (workspaceId: string, webhookId: string): Promise<WebhookDeliveryLog> =>
        data({ method: 'POST', path: `${hooks(workspaceId)}/${id(webhookId)}/test`, body: {} }),
    };
  }

  /** Ends the session (the refresh token stops working at once). */
  async logout(): Promise<void> {
    const refreshToken = this.#session?.refreshToken;
    if (!refreshToken) return;
    await this.#transport.send({ method: 'POST', path: '/identity/logout', body: { refreshToken }, retry: false });
    this.#session = undefined;
  }

  async #accessToken(): Promise<string> {
    const session = this.#session;
    if (session && session.refreshAtMs > Date.now()) return session.accessToken;
    if (!('email' in this.#options)) {
      if (session) return session.accessToken;
      throw new AuthError({ code: 'UNAUTHORIZED', message: 'no access token' });
    }
    this.#signingIn ??= (session?.refreshToken ? this.#refresh(session.refreshToken) : this.#login()).finally(() => {
      this.#signingIn = undefined;
    });
    await this.#signingIn;
    return (this.#session as { accessToken: string }).accessToken;
  }

  async #renew(rejected: string): Promise<void> {
    if (this.#session?.accessToken === rejected) this.#session = { ...this.#session, refreshAtMs: 0 };
    await this.#accessToken();
  }

  #keep(tokens: SessionTokens): void {
    const lifetimeMs = tokens.expiresIn * 1000;
    const expiresAtMs = Date.now() + lifetimeMs;
    this.#session = {
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken,
      // Refreshed in its last minute (the last quarter of a shorter lifetime), so a request never carries a dying token.
      refreshAtMs: expiresAtMs - Math.min(60_000, lifetimeMs / 4),
    };
  }

  async #login(): Promise<void> {
    const { email, password } = this.#options as { email: string; password: string };
    const answer = await this.#transport.send<Envelope<SessionTokens>>({
      method: 'POST',
      path: '/identity/login',
      body: { email, password },
      retry: false,
    });
    this.#keep(answer.body.data);
  }

  async #refresh(refreshToken: string): Promise<void> {
    try {
      const answer = await this.#transport.send<Envelope<SessionTokens>>({
        method: 'POST',
        path: '/identity/refresh',
        body: { refreshToken },
        retry: false,
      });
      this.#keep(answer.body.data);
    } catch (error) {
      // A refresh token that no longer works: sign in again with the credentials we were given.
      if (!(error instanceof AuthError)) throw error;
      await this.#login();
    }
  }
}
