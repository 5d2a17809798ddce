import { randomUUID } from 'node:crypto';
import type { AutomaticIdempotencyKeyPrefix, FinalityLevel, PlatformFinality } from '@holdfast/contracts';
import { type EventStreamOptions, type StreamedEvent, streamEvents } from './event-stream.js';
import type { paths as PaymentsPaths } from './generated/payments-openapi.js';
import { type AnswerAt, type BodyAt, type FormBodyAt, operationCaller, operationSender, type QueryAt } from './operations.js';
import { PageIterator, singlePage } from './pagination.js';
import { type ApiAnswer, createTransport, type TokenSource, type TransportOptions } from './transport.js';
import { escrowSessionOf, type X402FacilitatorConfig, x402FacilitatorConfig } from './x402.js';

/** The server's mark of a key made by a client library (contracts' AUTOMATIC_IDEMPOTENCY_KEY_PREFIX: the type keeps the two equal). */
const AUTOMATIC_KEY_PREFIX: AutomaticIdempotencyKeyPrefix = 'auto_';

export interface PaymentsClientOptions extends TransportOptions {
  clientId: string;
  clientSecret: string;
  /** Space-separated scopes to ask for; every scope of the client when absent. */
  scope?: string;
  /** Renew the token this long before it expires (seconds). Default 60. */
  renewBeforeSeconds?: number;
  /** Called while a token is fetched (for progress output). */
  onTokenFetch?: (phase: 'start' | 'done') => void;
}

/** Per-call options of a money-creating call. */
export interface IdempotentCall {
  /**
   * Makes a repeat of this call answer the first one's result instead of doing it twice. Sent as
   * `Idempotency-Key`; the SDK makes one (`auto_<uuid>`) when you give none, and reuses it on its own retries.
   */
  idempotencyKey?: string;
  signal?: AbortSignal;
}
export interface CallOptions {
  signal?: AbortSignal;
}

type PP = PaymentsPaths;
/** The JSON body an operation of the Payments API takes, by method and path (generated from the OpenAPI document, ADR 59). */
type Body<P extends keyof PP, M extends 'post' | 'put'> = BodyAt<PP, P, M>;
/** The 2xx JSON answer of an operation of the Payments API. */
type Answer<P extends keyof PP, M extends 'get' | 'post' | 'put' | 'delete'> = AnswerAt<PP, P, M>;
/** The OAuth endpoints, which take a form and answer the bare RFC 6749 object (not the envelope the document also allows). */
type OAuthPath = '/api/v2/oauth/token' | '/api/v2/oauth/revoke' | '/api/v2/oauth/introspect';
type OAuthAnswer<P extends OAuthPath> = Exclude<Answer<P, 'post'>, { success: true }>;

export type Transaction = Answer<'/api/v2/transactions/{id}', 'get'>;
export type NewTransaction = Answer<'/api/v2/transactions', 'post'>;
export type { FinalityLevel, PlatformFinality };
/**
 * How final an escrow is, lowest first (docs/chain.md, levels): `transaction.finality` is one of
 * them (null before the chain shows the lock), `transaction.requiredFinality` the one at which it
 * becomes `escrowed`, and `create({finality})` chooses it (docs/transactions.md, finality).
 */
export const FINALITY_LEVELS = ['seen', 'confirmed', 'safe', 'finalized'] as const satisfies readonly FinalityLevel[];
/** Where a transaction's escrow stands on chain: its finality fields. */
export type TransactionFinality = Pick<Transaction, 'finality' | 'confirmations' | 'blockNumber' | 'blockHash' | 'requiredFinality'>;
/** List filters: `page` and `limit` are optional (the iterator walks the pages itself). */
export type TransactionFilters = Partial<QueryAt<PP, '/api/v2/transactions', 'get'>>;
export type BatchFilters = Partial<QueryAt<PP, '/api/v2/transactions/batches', 'get'>>;
export type Batch = Answer<'/api/v2/transactions/batches/{id}', 'get'>;
/** A batch as lists show it (without its legs). */
export type BatchSummary = Answer<'/api/v2/transactions/batches', 'get'>['data'][number];
export type Scopes = Answer<'/api/v2/auth/scopes', 'get'>;
export type CheckoutSessionFilters = Partial<QueryAt<PP, '/api/v2/checkout/sessions', 'get'>>;
export type AccessToken = { accessToken: string; expiresAt: Date; scope: string };
/** An idempotent create's result and whether it replayed an earlier request's (`Idempotent-Replayed`). */
export type Created<T> = T & { idempotentReplayed?: boolean };

/**
 * The Payments API v2 client: OAuth client credentials (token fetched, cached and renewed before it
 * expires), one method per v2 operation, grouped by resource. docs/sdk.md.
 */
export class PaymentsClient {
  readonly oauth;
  readonly auth;
  readonly platforms;
  readonly transactions;
  readonly batches;
  readonly controls;
  readonly compliance;
  readonly disputes;
  readonly checkout;
  readonly x402;
  readonly events;
  readonly testHelpers;
  readonly request;
  readonly oauthClients;

  readonly #transport;
  readonly #options: PaymentsClientOptions;
  #token: { value: string; expiresAtMs: number; scope: string } | undefined;
  #fetching: Promise<void> | undefined;

  constructor(options: PaymentsClientOptions) {
    if (!options.baseUrl || !options.clientId || !options.clientSecret) {
      throw new TypeError('PaymentsClient needs baseUrl, clientId and clientSecret');
    }
    this.#options = options;
    this.#transport = createTransport(options);
    const bearer: TokenSource = { token: () => this.#accessToken(), renew: async (rejected) => this.#renew(rejected) };
    // Every named method goes through `send`, typed from the OpenAPI document: a path, method,
    // parameter, query, body or answer the document does not have does not compile.
    const send = operationSender<PaymentsPaths>(this.#transport, bearer);
    const bodyOf = <T>(answer: Promise<ApiAnswer<T>>): Promise<T> => answer.then((a) => a.body);
    // The caller's key says "this repeat is meant"; ours only makes our retries safe, so it is
    // marked `auto_` and the server's duplicate window still refuses the same body sent twice.
    const keyOf = (options: IdempotentCall = {}, body?: { idempotencyKey?: string }): string =>
      options.idempotencyKey ?? body?.idempotencyKey ?? `${AUTOMATIC_KEY_PREFIX}${randomUUID()}`;
    /** An idempotent create's answer, marked when it replayed an earlier request's. */
    const created = async <T>(answer: Promise<ApiAnswer<T>>): Promise<Created<T>> => {
      const a = await answer;
      return a.headers.get('idempotent-replayed') === 'true' ? { ...a.body, idempotentReplayed: true } : (a.body as Created<T>);
    };
    // A money-moving operation without a key of its own (docs/idempotency.md) is keyed like a
    // create (`keyOf(options)`), so the SDK may retry it after a lost answer and the retry answers the first success.
    const id = (value: string) => ({ id: value });

    this.oauth = {
      /** A valid access token (cached; fetched or renewed when needed). */
      token: async (): Promise<AccessToken> => {
        await this.#accessToken();
        const t = this.#token as { value: string; expiresAtMs: number; scope: string };
        return { accessToken: t.value, expiresAt: new Date(t.expiresAtMs), scope: t.scope };
      },
      /** Revokes a token of this client (the current one when none is given); the next call fetches a new one. */
      revoke: async (token?: string): Promise<void> => {
        const value = token ?? this.#token?.value;
        if (!value) return;
        await this.#formCall('/api/v2/oauth/revoke', { token: value }, false);
        if (value === this.#token?.value) this.#token = undefined;
      },
      introspect: (token: string): Promise<OAuthAnswer<'/api/v2/oauth/introspect'>> =>
        this.#formCall('/api/v2/oauth/introspect', { token }, false),
    };

    this.auth = {
      /** Every scope and what it grants (public). */
      scopes: (options: CallOptions = {}): Promise<Scopes> =>
        bodyOf(send('get', '/api/v2/auth/scopes', { accessToken: null, signal: options.signal })),
    };

    this.platforms = {
      /** The platform of this client's token. */
      me: (options: CallOptions = {}) => bodyOf(send('get', '/api/v2/auth/platform/me', { signal: options.signal })),
      list: (query: QueryAt<PP, '/api/v2/auth/platforms', 'get'> = {}) =>
        singlePage(() => bodyOf(send('get', '/api/v2/auth/platforms', { query }))),
      get: (platformId: string, options: CallOptions = {}) =>
        bodyOf(send('get', '/api/v2/auth/platform/{id}', { params: id(platformId), signal: options.signal })),
      update: (platformId: string, body: Body<'/api/v2/auth/platform/{id}', 'put'>) =>
        bodyOf(send('put', '/api/v2/auth/platform/{id}', { params: id(platformId), body })),
      deactivate: async (platformId: string): Promise<void> => {
        await send('delete', '/api/v2/auth/platform/{id}', { params: id(platformId) });
      },
    };

    this.transactions = {
      /** Creates a transaction; sends an Idempotency-Key (yours, or an `auto_` one of its own), so a retry never pays twice. */
      create: (body: Body<'/api/v2/transactions', 'post'>, options: IdempotentCall = {}) =>
        created(send('post', '/api/v2/transactions', { body, idempotencyKey: keyOf(options, body), signal: options.signal })),
      get: (transactionId: string, options: CallOptions = {}): Promise<Transaction> =>
        bodyOf(send('get', '/api/v2/transactions/{id}', { params: id(transactionId), signal: options.signal })),
      /** Every transaction matching the filters, newest first, page after page. */
      list: (filters: TransactionFilters = {}) =>
        new PageIterator(
          (page) => bodyOf(send('get', '/api/v2/transactions', { query: { ...filters, page, limit: filters.limit ?? 100 } })),
          filters.page ?? 1,
        ),
      atRisk: (options: CallOptions = {}) => bodyOf(send('get', '/api/v2/transactions/at-risk', { signal: options.signal })),
      stats: (options: CallOptions = {}) => bodyOf(send('get', '/api/v2/transactions/stats', { signal: options.signal })),
      quote: (body: Body<'/api/v2/transactions/quote', 'post'>, options: CallOptions = {}) =>
        bodyOf(send('post', '/api/v2/transactions/quote', { body, signal: options.signal })),
      submitHash: (transactionId: string, body: Body<'/api/v2/transactions/{id}/hash', 'post'>) =>
        bodyOf(send('post', '/api/v2/transactions/{id}/hash', { params: id(transactionId), body })),
      submitEscrowHash: (transactionId: string, body: Body<'/api/v2/transactions/{id}/escrow-hash', 'post'>) =>
        bodyOf(send('post', '/api/v2/transactions/{id}/escrow-hash', { params: id(transactionId), body })),
      attestRelease: (transactionId: string, options: IdempotentCall = {}) =>
        bodyOf(
          send('post', '/api/v2/transactions/{id}/release/attest', {
            params: id(transactionId),
            idempotencyKey: keyOf(options),
            signal: options.signal,
          }),
        ),
      attestEarlyRelease: (
        transactionId: string,
        body: Body<'/api/v2/transactions/{id}/release-early/attest', 'post'>,
        options: IdempotentCall = {},
      ) =>
        bodyOf(
          send('post', '/api/v2/transactions/{id}/release-early/attest', {
            params: id(transactionId),
            body,
            idempotencyKey: keyOf(options),
            signal: options.signal,
          }),
        ),
      rescind: (
        transactionId: string,
        body: Body<'/api/v2/transactions/{id}/rescind', 'post'> = {} as Body<'/api/v2/transactions/{id}/rescind', 'post'>,
        options: IdempotentCall = {},
      ) =>
        bodyOf(
          send('post', '/api/v2/transactions/{id}/rescind', {
            params: id(transactionId),
            body,
            idempotencyKey: keyOf(options),
            signal: options.signal,
          }),
        ),
      refund: (transactionId: string, body: Body<'/api/v2/transactions/{id}/refund', 'post'>, options: IdempotentCall = {}) =>
        bodyOf(
          send('post', '/api/v2/transactions/{id}/refund', {
            params: id(transactionId),
            body,
            idempotencyKey: keyOf(options),
            signal: options.signal,
          }),
        ),
    };

    this.batches = {
      /** Creates a batch (one sender, many legs) with an Idempotency-Key, like `transactions.create`. */
      create: (body: Body<'/api/v2/transactions/batches', 'post'>, options: IdempotentCall = {}) =>
        created(send('post', '/api/v2/transactions/batches', { body, idempotencyKey: keyOf(options, body), signal: options.signal })),
      get: (batchId: string, options: CallOptions = {}): Promise<Batch> =>
        bodyOf(send('get', '/api/v2/transactions/batches/{id}', { params: id(batchId), signal: options.signal })),
      list: (filters: BatchFilters = {}) =>
        new PageIterator<BatchSummary>(
          (page) => bodyOf(send('get', '/api/v2/transactions/batches', { query: { ...filters, page, limit: filters.limit ?? 100 } })),
          filters.page ?? 1,
        ),
    };

    this.checkout = {
      sessions: {
        /** Creates a checkout session with an Idempotency-Key (yours or a new UUID); send the payer to its `url`. */
        create: (body: Body<'/api/v2/checkout/sessions', 'post'>, options: IdempotentCall = {}) =>
          created(send('post', '/api/v2/checkout/sessions', { body, idempotencyKey: keyOf(options, body), signal: options.signal })),
        retrieve: (sessionId: string, options: CallOptions = {}) =>
          bodyOf(send('get', '/api/v2/checkout/sessions/{id}', { params: id(sessionId), signal: options.signal })),
        /** Every session matching the filters, newest first, page after page. */
        list: (filters: CheckoutSessionFilters = {}) =>
          new PageIterator(
            (page) => bodyOf(send('get', '/api/v2/checkout/sessions', { query: { ...filters, page, limit: filters.limit ?? 100 } })),
            filters.page ?? 1,
          ),
        /** An open session expires now (an expired one answers as it is; processing or complete: 409). */
        expire: (sessionId: string) => bodyOf(send('post', '/api/v2/checkout/sessions/{id}/expire', { params: id(sessionId) })),
      },
      /**
       * The payer's side, as the hosted page calls it (no platform credential: the session id is the
       * capability; public rate-limit tier). For a page of your own and for tests: name the payer,
       * read what it signs (`payment.typedData`, EIP-712 ReceiveWithAuthorization), send the signature.
       */
      payer: {
        attach: (sessionId: string, body: Body<'/api/v2/checkout/sessions/{id}/payer', 'post'>) =>
          bodyOf(send('post', '/api/v2/checkout/sessions/{id}/payer', { params: id(sessionId), body, accessToken: null, retry: true })),
        page: (sessionId: string) =>
          bodyOf(send('get', '/api/v2/checkout/sessions/{id}/page', { params: id(sessionId), accessToken: null })),
        /** The payer's signature to the relayer: 202 relayed now, 200 the same signature again (nothing sent twice). */
        authorize: (sessionId: string, body: Body<'/api/v2/checkout/sessions/{id}/authorization', 'post'>) =>
          bodyOf(
            send('post', '/api/v2/checkout/sessions/{id}/authorization', { params: id(sessionId), body, accessToken: null, retry: true }),
          ),
      },
    };

    this.x402 = {
      /**
       * Holdfast's x402 facilitator for a seller's middleware: `new HTTPFacilitatorClient(client.x402.facilitator())`
       * (@x402/core); every call carries this client's bearer token (docs/x402.md).
       */
      facilitator: (): X402FacilitatorConfig => x402FacilitatorConfig(this.#transport.baseUrl, () => this.oauth.token()),
      /**
       * A `holdfast-escrow` price for an x402 route (with `HoldfastEscrowServerScheme`): a checkout
       * session of `session` per unpaid request, the one its payment names for a paid one (this
       * platform's only: another is 404 and a new session is made), priced as its `x402Url` answers.
       */
      escrowPrice:
        (session: Body<'/api/v2/checkout/sessions', 'post'>) =>
        async (context: { paymentHeader?: string }): Promise<{ amount: string; asset: string; extra: Record<string, unknown> }> => {
          const named = escrowSessionOf(context.paymentHeader);
          const found = named ? await this.checkout.sessions.retrieve(named).catch(() => null) : null;
          const s = found ?? (await this.checkout.sessions.create(session));
          const answer = await fetchOf(this.#options)(s.x402Url);
          const required = (await answer.json()) as { accepts?: { amount: string; asset: string; extra: Record<string, unknown> }[] };
          const first = required.accepts?.[0];
          if (!first) throw new Error(`The checkout session ${s.id} answers no x402 requirements (${answer.status})`);
          return { amount: first.amount, asset: first.asset, extra: first.extra };
        },
      /** The settlement of an x402 payment by its Holdfast transaction (`extra.holdfast.transactionId` of a settle answer). */
      settlement: (transactionId: string, options: CallOptions = {}) =>
        bodyOf(send('get', '/api/v2/x402/settlements/{transactionId}', { params: { transactionId }, signal: options.signal })),
    };

    this.controls = {
      verifyTwoFactor: (body: Body<'/api/v2/controls/verify-2fa', 'post'>) => bodyOf(send('post', '/api/v2/controls/verify-2fa', { body })),
      verifyVendorSms: (body: Body<'/api/v2/controls/vendor-sms/verify', 'post'>) =>
        bodyOf(send('post', '/api/v2/controls/vendor-sms/verify', { body })),
    };

    this.compliance = {
      createVerification: (body: Body<'/api/v2/compliance/verifications', 'post'>) =>
        bodyOf(send('post', '/api/v2/compliance/verifications', { body })),
      checkVerification: (body: Body<'/api/v2/compliance/verifications/check', 'post'>) =>
        bodyOf(send('post', '/api/v2/compliance/verifications/check', { body })),
      getVerification: (verificationId: string, options: CallOptions = {}) =>
        bodyOf(send('get', '/api/v2/compliance/verifications/{id}', { params: id(verificationId), signal: options.signal })),
    };

    this.disputes = {
      /** Disputes, newest first (the API answers at most `limit`, 100 by default, in one list). */
      list: (filters: Partial<QueryAt<PP, '/api/v2/disputes', 'get'>> = {}) =>
        singlePage(() => bodyOf(send('get', '/api/v2/disputes', { query: filters }))),
      open: (body: Body<'/api/v2/disputes', 'post'>, options: IdempotentCall = {}) =>
        bodyOf(send('post', '/api/v2/disputes', { body, idempotencyKey: keyOf(options), signal: options.signal })),
      get: (disputeId: string, options: CallOptions = {}) =>
        bodyOf(send('get', '/api/v2/disputes/{id}', { params: id(disputeId), signal: options.signal })),
      escalate: (disputeId: string, options: IdempotentCall = {}) =>
        bodyOf(
          send('post', '/api/v2/disputes/{id}/escalate', { params: id(disputeId), idempotencyKey: keyOf(options), signal: options.signal }),
        ),
      submitEvidence: (disputeId: string, body: Body<'/api/v2/disputes/{id}/evidence', 'post'>, options: IdempotentCall = {}) =>
        bodyOf(
          send('post', '/api/v2/disputes/{id}/evidence', {
            params: id(disputeId),
            body,
            idempotencyKey: keyOf(options),
            signal: options.signal,
          }),
        ),
      resolve: (disputeId: string, body: Body<'/api/v2/disputes/{id}/resolve', 'post'>, options: IdempotentCall = {}) =>
        bodyOf(
          send('post', '/api/v2/disputes/{id}/resolve', {
            params: id(disputeId),
            body,
            idempotencyKey: keyOf(options),
            signal: options.signal,
          }),
        ),
    };

    this.testHelpers = {
      /**
       * Test clock (docs/test-clock.md): ends the hold of the platform's own escrowed or in_review
       * transaction now, for a sandbox credential or a local deployment (403 for a live platform).
       */
      advanceHold: (transactionId: string, options: IdempotentCall = {}) =>
        bodyOf(
          send('post', '/api/v2/test_helpers/transactions/{id}/advance_hold', {
            params: id(transactionId),
            idempotencyKey: keyOf(options),
            signal: options.signal,
          }),
        ),
    };

    /**
     * Any operation of the Payments API, typed from the OpenAPI document (ADR 59): the named
     * methods above are the ergonomic surface; this reaches the others (v1 routes, operator routes)
     * with the same token, retries and errors. `request('get', '/api/v2/transactions/stats')`.
     */
    this.request = operationCaller<PaymentsPaths>(this.#transport, bearer);

    /** Operator routes of OAuth clients (v1, `admin:platform`): create one on a platform, revoke every token of one. */
    this.oauthClients = {
      create: (body: Body<'/api/v1/oauth/clients', 'post'>) => this.request('post', '/api/v1/oauth/clients', { body }),
      revokeAllTokens: (clientId: string) =>
        this.request('post', '/api/v1/oauth/clients/{clientId}/revoke-all-tokens', { params: { clientId } }),
    };

    this.events = {
      /**
       * The platform's events live (`GET /api/v2/events/stream`, an extension beyond the spec's
       * operations), reconnecting with `Last-Event-ID` so none is missed.
       */
      stream: (options: EventStreamOptions = {}): AsyncIterable<StreamedEvent> =>
        streamEvents(this.#transport.baseUrl, bearer, fetchOf(this.#options), options),
    };
  }

  async #accessToken(): Promise<string> {
    const margin = (this.#options.renewBeforeSeconds ?? 60) * 1000;
    if (!this.#token || this.#token.expiresAtMs - margin <= Date.now()) {
      this.#fetching ??= this.#fetchToken().finally(() => {
        this.#fetching = undefined;
      });
      await this.#fetching;
    }
    return (this.#token as { value: string }).value;
  }

  async #renew(rejected: string): Promise<void> {
    if (this.#token?.value === rejected) this.#token = undefined;
    await this.#accessToken();
  }

  /** The client-credentials grant, form-encoded with HTTP Basic (RFC 6749 §4.4). */
  async #fetchToken(): Promise<void> {
    this.#options.onTokenFetch?.('start');
    try {
      const answer = await this.#formCall(
        '/api/v2/oauth/token',
        { grant_type: 'client_credentials', ...(this.#options.scope ? { scope: this.#options.scope } : {}) },
        true,
      );
      this.#token = { value: answer.access_token, expiresAtMs: Date.now() + answer.expires_in * 1000, scope: answer.scope };
    } finally {
      this.#options.onTokenFetch?.('done');
    }
  }

  /**
   * The OAuth endpoints (token, revoke, introspect): a form, authenticated as the client with HTTP
   * Basic, not with a token; the path, the form's fields and the answer are the document's.
   */
  async #formCall<P extends OAuthPath>(path: P, fields: FormBodyAt<PP, P, 'post'>, retry: boolean): Promise<OAuthAnswer<P>> {
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(fields as Record<string, unknown>)) if (value !== undefined) form.set(name, String(value));
    const basic = Buffer.from(`${encodeURIComponent(this.#options.clientId)}:${encodeURIComponent(this.#options.clientSecret)}`).toString(
      'base64',
    );
    const doFetch = fetchOf(this.#options);
    // The transport speaks JSON; the OAuth endpoints take a form, so the body is sent by a wrapper fetch.
    const formFetch: typeof fetch = (input, init) =>
      doFetch(input, {
        ...init,
        body: form.toString(),
        headers: { ...(init?.headers as Record<string, string>), 'content-type': 'application/x-www-form-urlencoded' },
      });
    const answer = await createTransport({ ...this.#options, fetch: formFetch }).send<OAuthAnswer<P>>({
      method: 'POST',
      path,
      headers: { authorization: `Basic ${basic}` },
      retry,
    });
    return answer.body;
  }
}

function fetchOf(options: { fetch?: typeof fetch }): typeof fetch {
  return options.fetch ?? globalThis.fetch;
}
