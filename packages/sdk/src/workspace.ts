import { AuthError } from './errors.js';
import type { paths as WorkspacePaths } from './generated/workspace-openapi.js';
import { type AnswerAt, type BodyAt, dataOf, operationCaller, operationSender, type QueryAt } from './operations.js';
import { type Page, PageIterator } from './pagination.js';
import { createTransport, type TokenSource, type TransportOptions } from './transport.js';

type WP = WorkspacePaths;
/** The JSON body an operation of the Workspace API takes (generated from the OpenAPI document, ADR 59). */
type JsonBody<P extends keyof WP, M extends 'post' | 'put' | 'patch'> = BodyAt<WP, P, M>;
type Query<P extends keyof WP, M extends 'get'> = QueryAt<WP, P, M>;
/** The `data` of an operation's envelope answer. */
type Data<P extends keyof WP, M extends 'get' | 'post' | 'put' | 'patch' | 'delete'> =
  AnswerAt<WP, P, M> extends { data: infer D } ? D : never;

type Hook = '/api/v1/workspaces/{id}/webhooks/{webhookId}';
export type WebhookSubscription = Data<Hook, 'get'>;
export type WebhookSubscriptionWithSecret = Data<'/api/v1/workspaces/{id}/webhooks', 'post'>;
export type WebhookDeliveryLog = Data<`${Hook}/delivery-logs`, 'get'>['logs'][number];
export type WebhookDelivery = Data<`${Hook}/deliveries/{deliveryId}/resend`, 'post'>;
export type ReplayWebhookBody = JsonBody<`${Hook}/replay`, 'post'>;
export type ReplayResult = Data<`${Hook}/replay`, 'post'>;
type SessionTokens = Data<'/identity/login', 'post'>;

/** Sign in with a token you already hold (no refresh), or with e-mail and password (refreshed for you). */
export type WorkspaceClientOptions = TransportOptions & ({ accessToken: string } | { email: string; password: string });

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
  readonly #send;
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
    const hook = (workspaceId: string, webhookId: string) => ({ id: workspaceId, webhookId });

    /**
     * Any operation of the Workspace API, typed from the OpenAPI document (ADR 59), with the
     * session of this client: `request('get', '/api/v1/workspaces/{id}/audit-logs', { params: { id } })`.
     * Answers the envelope as the API writes it (`{success, data, meta}`).
     */
    this.request = operationCaller<WorkspacePaths>(this.#transport, bearer);
    // The named methods below go through the same typed layer: a path, method, parameter, query,
    // body or answer the document does not have does not compile.
    const send = operationSender<WorkspacePaths>(this.#transport, bearer);

    const r = this.request;
    /** A paged envelope answer as the other lists: `for await` over every page. */
    const paged = <E extends { data: unknown[]; meta?: { pagination?: Page<unknown>['pagination'] } }>(
      fetchPage: (page: number) => Promise<E>,
      startPage = 1,
    ) =>
      new PageIterator<E['data'][number]>(async (page) => {
        const answer = await fetchPage(page);
        const pagination = answer.meta?.pagination ?? { page, limit: answer.data.length, total: answer.data.length, totalPages: 1 };
        return { data: answer.data as E['data'][number][], pagination };
      }, startPage);
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
    this.me = () => dataOf(r('get', '/identity/me'));

    this.workspaces = {
      /** A SUPER_ADMIN sees every workspace, an ADMIN its own; page after page. */
      list: (filters: Partial<Query<'/api/v1/workspaces', 'get'>> = {}) =>
        paged((page) => r('get', '/api/v1/workspaces', { query: { ...filters, page, limit: filters.limit ?? 100 } }), filters.page ?? 1),
      /** The caller's own workspace. */
      mine: () => dataOf(r('get', '/api/v1/workspaces/me')),
      get: (workspaceId: string) => dataOf(r('get', '/api/v1/workspaces/{id}', { params: ws(workspaceId) })),
      create: (body: JsonBody<'/api/v1/workspaces', 'post'>) => dataOf(r('post', '/api/v1/workspaces', { body })),
    };

    this.sandboxCredentials = {
      /** A platform for the workspace with a v1 API key and a v2 OAuth client; the secrets are shown only here. */
      create: (workspaceId: string) => dataOf(r('post', '/api/v1/workspaces/{id}/sandbox-credentials', { params: ws(workspaceId) })),
    };

    // Only reads are retried here (a PATCH or DELETE whose answer was lost is not sent again).
    this.webhooks = {
      eventTypes: (workspaceId: string) => dataOf(r('get', '/api/v1/workspaces/{id}/webhooks/events/types', { params: ws(workspaceId) })),
      list: (workspaceId: string, query: Partial<Query<'/api/v1/workspaces/{id}/webhooks', 'get'>> = {}): Promise<WebhookSubscription[]> =>
        dataOf(r('get', '/api/v1/workspaces/{id}/webhooks', { params: ws(workspaceId), query })),
      /** Subscribes a URL; the answer's `secret` is shown only here. */
      create: (workspaceId: string, body: JsonBody<'/api/v1/workspaces/{id}/webhooks', 'post'>): Promise<WebhookSubscriptionWithSecret> =>
        dataOf(r('post', '/api/v1/workspaces/{id}/webhooks', { params: ws(workspaceId), body })),
      get: (workspaceId: string, webhookId: string): Promise<WebhookSubscription> =>
        dataOf(r('get', '/api/v1/workspaces/{id}/webhooks/{webhookId}', { params: hook(workspaceId, webhookId) })),
      update: (workspaceId: string, webhookId: string, body: JsonBody<Hook, 'patch'>): Promise<WebhookSubscription> =>
        dataOf(
          send('patch', '/api/v1/workspaces/{id}/webhooks/{webhookId}', { params: hook(workspaceId, webhookId), body, retry: false }).then(
            (a) => a.body,
          ),
        ),
      delete: async (workspaceId: string, webhookId: string): Promise<void> => {
        await send('delete', '/api/v1/workspaces/{id}/webhooks/{webhookId}', { params: hook(workspaceId, webhookId), retry: false });
      },
      /**
       * Every delivery attempt to the subscription, newest first, as the other lists: `for await`
       * walks page after page (the API's limit/offset), `firstPage()` answers the first with its total.
       */
      deliveryLogs: (
        workspaceId: string,
        webhookId: string,
        query: Omit<Partial<Query<`${Hook}/delivery-logs`, 'get'>>, 'offset'> = {},
      ) => {
        const limit = query.limit ?? 100;
        return new PageIterator<WebhookDeliveryLog>(async (page) => {
          const answer = await dataOf(
            r('get', '/api/v1/workspaces/{id}/webhooks/{webhookId}/delivery-logs', {
              params: hook(workspaceId, webhookId),
              query: { ...query, limit, offset: (page - 1) * limit },
            }),
          );
          return {
            data: answer.logs,
            pagination: { page, limit, total: answer.total, totalPages: Math.max(1, Math.ceil(answer.total / limit)) },
          };
        });
      },
      /** Queues one delivery (a `deliveryId` of the logs) for an attempt now, with the same delivery id. */
      resend: (workspaceId: string, webhookId: string, deliveryId: string): Promise<WebhookDelivery> =>
        dataOf(
          r('post', '/api/v1/workspaces/{id}/webhooks/{webhookId}/deliveries/{deliveryId}/resend', {
            params: { ...hook(workspaceId, webhookId), deliveryId },
          }),
        ),
      /** Queues the events of `[from, to)` the subscription matches (at most 5,000 per call; `resumeFrom` continues). */
      replay: (workspaceId: string, webhookId: string, body: ReplayWebhookBody): Promise<ReplayResult> =>
        dataOf(r('post', '/api/v1/workspaces/{id}/webhooks/{webhookId}/replay', { params: hook(workspaceId, webhookId), body })),
      /** Starts a rotation: the answer holds the new secret; deliveries are signed with both until `completeRotation`. */
      rotateSecret: (workspaceId: string, webhookId: string): Promise<WebhookSubscriptionWithSecret> =>
        dataOf(r('post', '/api/v1/workspaces/{id}/webhooks/{webhookId}/rotate-secret', { params: hook(workspaceId, webhookId) })),
      completeRotation: (workspaceId: string, webhookId: string): Promise<WebhookSubscription> =>
        dataOf(r('post', '/api/v1/workspaces/{id}/webhooks/{webhookId}/complete-rotation', { params: hook(workspaceId, webhookId) })),
      /** Sends one signed `webhook.test` delivery now and answers how it went. */
      test: (workspaceId: string, webhookId: string): Promise<WebhookDeliveryLog> =>
        dataOf(r('post', '/api/v1/workspaces/{id}/webhooks/{webhookId}/test', { params: hook(workspaceId, webhookId) })),
    };
    this.#send = send;
  }

  /** Ends the session (the refresh token stops working at once). */
  async logout(): Promise<void> {
    const refreshToken = this.#session?.refreshToken;
    if (!refreshToken) return;
    await this.#send('post', '/identity/logout', { body: { refreshToken }, accessToken: null });
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
    const answer = await this.#send('post', '/identity/login', { body: { email, password }, accessToken: null });
    this.#keep(answer.body.data);
  }

  async #refresh(refreshToken: string): Promise<void> {
    try {
      const answer = await this.#send('post', '/identity/refresh', { body: { refreshToken }, accessToken: null });
      this.#keep(answer.body.data);
    } catch (error) {
      // A refresh token that no longer works: sign in again with the credentials we were given.
      if (!(error instanceof AuthError)) throw error;
      await this.#login();
    }
  }
}
