import { randomUUID } from 'node:crypto';
import type {
  AtRiskReport,
  AttachCheckoutPayerBody,
  AutomaticIdempotencyKeyPrefix,
  BatchCreated,
  BatchList,
  BatchListQuery,
  BatchWithLegs,
  CheckoutAuthorizationBody,
  CheckoutPage,
  CheckoutPayment,
  CheckoutSession,
  CheckoutSessionListQuery,
  CheckVerificationBody,
  ControlVerification,
  CreateBatchBody,
  CreateCheckoutSessionBody,
  CreateDisputeBody,
  CreatedTransaction,
  CreateTransactionBody,
  CreateVerificationBody,
  Dispute,
  Evidence,
  FinalityLevel,
  IntrospectionResponse,
  ListDisputesQuery,
  PaymentsTransaction,
  Platform,
  PlatformFinality,
  Quote,
  QuoteBody,
  RefundBody,
  ReleaseEarlyAttestBody,
  RescindBody,
  ResolveDisputeBody,
  ScopeCatalogue,
  SubmitEscrowHashBody,
  SubmitEvidenceBody,
  SubmitHashBody,
  TransactionListQuery,
  TransactionOperationResult,
  TransactionStats,
  UpdatePlatformBody,
  Verification,
  VerifyControlCodeBody,
  X402Settlement,
} from '@holdfast/contracts';
import type { Static } from '@sinclair/typebox';
import { type EventStreamOptions, type StreamedEvent, streamEvents } from './event-stream.js';
import type { paths as PaymentsPaths } from './generated/payments-openapi.js';
import { type OperationAt, operationCaller, type RequestInit } from './operations.js';
import { type Page, PageIterator, singlePage } from './pagination.js';
import { type ApiRequest, createTransport, type TokenSource, type TransportOptions } from './transport.js';
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

export type Transaction = Static<typeof PaymentsTransaction>;
export type { FinalityLevel, PlatformFinality };
/**
 * How final an escrow is, lowest first (docs/chain.md, levels): `transaction.finality` is one of
 * them (null before the chain shows the lock), `transaction.requiredFinality` the one at which it
 * becomes `escrowed`, and `create({finality})` chooses it (docs/transactions.md, finality).
 */
export const FINALITY_LEVELS = ['seen', 'confirmed', 'safe', 'finalized'] as const satisfies readonly FinalityLevel[];
/** Where a transaction's escrow stands on chain: its finality fields. */
export type TransactionFinality = Pick<Transaction, 'finality' | 'confirmations' | 'blockNumber' | 'blockHash' | 'requiredFinality'>;
export type NewTransaction = Static<typeof CreatedTransaction>;
/** List filters: `page` and `limit` are optional (the iterator walks the pages itself). */
export type TransactionFilters = Partial<TransactionListQuery>;
export type BatchFilters = Partial<BatchListQuery>;
export type Batch = BatchWithLegs;
/** A batch as lists show it (without its legs). */
export type BatchSummary = BatchList['data'][number];
export type Scopes = Static<typeof ScopeCatalogue>;
export type CheckoutSessionFilters = Partial<CheckoutSessionListQuery>;
export type AccessToken = { accessToken: string; expiresAt: Date; scope: string };
/** An idempotent create's result and whether it replayed an earlier request's (`Idempotent-Replayed`). */
export type Created<T> = T & { idempotentReplayed?: boolean };

interface TokenAnswer {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
}

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
    const get = <T>(path: string, query?: ApiRequest['query'], signal?: AbortSignal) =>
      this.#transport.send<T>({ method: 'GET', path, query, retry: true, auth: bearer, signal }).then((a) => a.body);
    const post = <T>(path: string, body: unknown, signal?: AbortSignal) =>
      this.#transport.send<T>({ method: 'POST', path, body: body ?? {}, retry: false, auth: bearer, signal }).then((a) => a.body);
    const create = async <T>(path: string, body: unknown, options: IdempotentCall = {}): Promise<Created<T>> => {
      // The caller's key says "this repeat is meant"; ours only makes our retries safe, so it is
      // marked `auto_` and the server's duplicate window still refuses the same body sent twice.
      const idempotencyKey =
        options.idempotencyKey ?? (body as { idempotencyKey?: string }).idempotencyKey ?? `${AUTOMATIC_KEY_PREFIX}${randomUUID()}`;
      const answer = await this.#transport.send<T>({
        method: 'POST',
        path,
        body,
        headers: { 'idempotency-key': idempotencyKey },
        retry: true,
        auth: bearer,
        signal: options.signal,
      });
      return answer.headers.get('idempotent-replayed') === 'true'
        ? { ...answer.body, idempotentReplayed: true }
        : (answer.body as Created<T>);
    };
    // A money-moving operation without a key of its own (docs/idempotency.md): keyed like a create,
    // so the SDK may retry it after a lost answer and the retry answers the first success.
    const act = async <T>(path: string, body: unknown, options: IdempotentCall = {}): Promise<T> => {
      const answer = await this.#transport.send<T>({
        method: 'POST',
        path,
        body: body ?? {},
        headers: { 'idempotency-key': options.idempotencyKey ?? `${AUTOMATIC_KEY_PREFIX}${randomUUID()}` },
        retry: true,
        auth: bearer,
        signal: options.signal,
      });
      return answer.body;
    };
    const id = (value: string) => encodeURIComponent(value);
    const v2 = '/api/v2';

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
        await this.#clientCall('/oauth/revoke', { token: value });
        if (value === this.#token?.value) this.#token = undefined;
      },
      introspect: (token: string): Promise<IntrospectionResponse> =>
        this.#clientCall<IntrospectionResponse>('/oauth/introspect', { token }),
    };

    this.auth = {
      /** Every scope and what it grants (public). */
      scopes: (options: CallOptions = {}): Promise<Scopes> =>
        this.#transport.send<Scopes>({ method: 'GET', path: `${v2}/auth/scopes`, retry: true, signal: options.signal }).then((a) => a.body),
    };

    this.platforms = {
      /** The platform of this client's token. */
      me: (options: CallOptions = {}): Promise<Platform> => get(`${v2}/auth/platform/me`, undefined, options.signal),
      list: (query: { workspaceId?: string } = {}) => singlePage(() => get<Platform[]>(`${v2}/auth/platforms`, query)),
      get: (platformId: string, options: CallOptions = {}): Promise<Platform> =>
        get(`${v2}/auth/platform/${id(platformId)}`, undefined, options.signal),
      update: (platformId: string, body: UpdatePlatformBody): Promise<Platform> =>
        this.#transport
          .send<Platform>({ method: 'PUT', path: `${v2}/auth/platform/${id(platformId)}`, body, retry: true, auth: bearer })
          .then((a) => a.body),
      deactivate: async (platformId: string): Promise<void> => {
        await this.#transport.send({ method: 'DELETE', path: `${v2}/auth/platform/${id(platformId)}`, retry: true, auth: bearer });
      },
    };

    this.transactions = {
      /** Creates a transaction; sends an Idempotency-Key (yours, or an `auto_` one of its own), so a retry never pays twice. */
      create: (body: CreateTransactionBody, options?: IdempotentCall) => create<NewTransaction>(`${v2}/transactions`, body, options),
      get: (transactionId: string, options: CallOptions = {}): Promise<Transaction> =>
        get(`${v2}/transactions/${id(transactionId)}`, undefined, options.signal),
      /** Every transaction matching the filters, newest first, page after page. */
      list: (filters: TransactionFilters = {}) =>
        new PageIterator<Transaction>(
          (page) => get<Page<Transaction>>(`${v2}/transactions`, { ...filters, page, limit: filters.limit ?? 100 }),
          filters.page ?? 1,
        ),
      atRisk: (options: CallOptions = {}): Promise<AtRiskReport> => get(`${v2}/transactions/at-risk`, undefined, options.signal),
      stats: (options: CallOptions = {}): Promise<TransactionStats> => get(`${v2}/transactions/stats`, undefined, options.signal),
      quote: (body: QuoteBody, options: CallOptions = {}): Promise<Quote> => post(`${v2}/transactions/quote`, body, options.signal),
      submitHash: (transactionId: string, body: SubmitHashBody): Promise<TransactionOperationResult> =>
        post(`${v2}/transactions/${id(transactionId)}/hash`, body),
      submitEscrowHash: (transactionId: string, body: SubmitEscrowHashBody): Promise<TransactionOperationResult> =>
        post(`${v2}/transactions/${id(transactionId)}/escrow-hash`, body),
      attestRelease: (transactionId: string, options?: IdempotentCall): Promise<TransactionOperationResult> =>
        act(`${v2}/transactions/${id(transactionId)}/release/attest`, {}, options),
      attestEarlyRelease: (
        transactionId: string,
        body: ReleaseEarlyAttestBody,
        options?: IdempotentCall,
      ): Promise<TransactionOperationResult> => act(`${v2}/transactions/${id(transactionId)}/release-early/attest`, body, options),
      rescind: (
        transactionId: string,
        body: RescindBody = {} as RescindBody,
        options?: IdempotentCall,
      ): Promise<TransactionOperationResult> => act(`${v2}/transactions/${id(transactionId)}/rescind`, body, options),
      refund: (transactionId: string, body: RefundBody, options?: IdempotentCall): Promise<TransactionOperationResult> =>
        act(`${v2}/transactions/${id(transactionId)}/refund`, body, options),
    };

    this.batches = {
      /** Creates a batch (one sender, many legs) with an Idempotency-Key, like `transactions.create`. */
      create: (body: CreateBatchBody, options?: IdempotentCall) => create<BatchCreated>(`${v2}/transactions/batches`, body, options),
      get: (batchId: string, options: CallOptions = {}): Promise<Batch> =>
        get(`${v2}/transactions/batches/${id(batchId)}`, undefined, options.signal),
      list: (filters: BatchFilters = {}) =>
        new PageIterator<BatchSummary>(
          (page) => get(`${v2}/transactions/batches`, { ...filters, page, limit: filters.limit ?? 100 }),
          filters.page ?? 1,
        ),
    };

    this.checkout = {
      sessions: {
        /** Creates a checkout session with an Idempotency-Key (yours or a new UUID); send the payer to its `url`. */
        create: (body: CreateCheckoutSessionBody, options?: IdempotentCall) =>
          create<CheckoutSession>(`${v2}/checkout/sessions`, body, options),
        retrieve: (sessionId: string, options: CallOptions = {}): Promise<CheckoutSession> =>
          get(`${v2}/checkout/sessions/${id(sessionId)}`, undefined, options.signal),
        /** Every session matching the filters, newest first, page after page. */
        list: (filters: CheckoutSessionFilters = {}) =>
          new PageIterator<CheckoutSession>(
            (page) => get<Page<CheckoutSession>>(`${v2}/checkout/sessions`, { ...filters, page, limit: filters.limit ?? 100 }),
            filters.page ?? 1,
          ),
        /** An open session expires now (an expired one answers as it is; processing or complete: 409). */
        expire: (sessionId: string): Promise<CheckoutSession> => post(`${v2}/checkout/sessions/${id(sessionId)}/expire`, {}),
      },
      /**
       * The payer's side, as the hosted page calls it (no platform credential: the session id is the
       * capability; public rate-limit tier). For a page of your own and for tests: name the payer,
       * read what it signs (`payment.typedData`, EIP-712 ReceiveWithAuthorization), send the signature.
       */
      payer: {
        attach: (sessionId: string, body: AttachCheckoutPayerBody): Promise<CheckoutPayment> =>
          this.#transport
            .send<CheckoutPayment>({ method: 'POST', path: `${v2}/checkout/sessions/${id(sessionId)}/payer`, body, retry: true })
            .then((a) => a.body),
        page: (sessionId: string): Promise<CheckoutPage> =>
          this.#transport
            .send<CheckoutPage>({ method: 'GET', path: `${v2}/checkout/sessions/${id(sessionId)}/page`, retry: true })
            .then((a) => a.body),
        /** The payer's signature to the relayer: 202 relayed now, 200 the same signature again (nothing sent twice). */
        authorize: (sessionId: string, body: CheckoutAuthorizationBody): Promise<CheckoutPage> =>
          this.#transport
            .send<CheckoutPage>({ method: 'POST', path: `${v2}/checkout/sessions/${id(sessionId)}/authorization`, body, retry: true })
            .then((a) => a.body),
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
        (session: CreateCheckoutSessionBody) =>
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
      settlement: (transactionId: string, options: CallOptions = {}): Promise<X402Settlement> =>
        get(`${v2}/x402/settlements/${id(transactionId)}`, undefined, options.signal),
    };

    this.controls = {
      verifyTwoFactor: (body: VerifyControlCodeBody): Promise<ControlVerification> => post(`${v2}/controls/verify-2fa`, body),
      verifyVendorSms: (body: VerifyControlCodeBody): Promise<ControlVerification> => post(`${v2}/controls/vendor-sms/verify`, body),
    };

    this.compliance = {
      createVerification: (body: CreateVerificationBody): Promise<Verification> => post(`${v2}/compliance/verifications`, body),
      checkVerification: (body: CheckVerificationBody): Promise<Verification> => post(`${v2}/compliance/verifications/check`, body),
      getVerification: (verificationId: string, options: CallOptions = {}): Promise<Verification> =>
        get(`${v2}/compliance/verifications/${id(verificationId)}`, undefined, options.signal),
    };

    this.disputes = {
      /** Disputes, newest first (the API answers at most `limit`, 100 by default, in one list). */
      list: (filters: Partial<ListDisputesQuery> = {}) => singlePage(() => get<Dispute[]>(`${v2}/disputes`, filters)),
      open: (body: CreateDisputeBody, options?: IdempotentCall): Promise<Dispute> => act(`${v2}/disputes`, body, options),
      get: (disputeId: string, options: CallOptions = {}): Promise<Dispute> =>
        get(`${v2}/disputes/${id(disputeId)}`, undefined, options.signal),
      escalate: (disputeId: string, options?: IdempotentCall): Promise<Dispute> =>
        act(`${v2}/disputes/${id(disputeId)}/escalate`, {}, options),
      submitEvidence: (disputeId: string, body: SubmitEvidenceBody, options?: IdempotentCall): Promise<Evidence> =>
        act(`${v2}/disputes/${id(disputeId)}/evidence`, body, options),
      resolve: (disputeId: string, body: ResolveDisputeBody, options?: IdempotentCall): Promise<Dispute> =>
        act(`${v2}/disputes/${id(disputeId)}/resolve`, body, options),
    };

    this.testHelpers = {
      /**
       * Test clock (docs/test-clock.md): ends the hold of the platform's own escrowed or in_review
       * transaction now, for a sandbox credential or a local deployment (403 for a live platform).
       */
      advanceHold: (transactionId: string, options?: IdempotentCall): Promise<TransactionOperationResult> =>
        act(`${v2}/test_helpers/transactions/${id(transactionId)}/advance_hold`, undefined, options),
    };

    /**
     * Any operation of the Payments API, typed from the OpenAPI document (ADR 59): the named
     * methods above are the ergonomic surface; this reaches the others (v1 routes, operator routes)
     * with the same token, retries and errors. `request('get', '/api/v2/transactions/stats')`.
     */
    this.request = operationCaller<PaymentsPaths>(this.#transport, bearer);

    /** Operator routes of OAuth clients (v1, `admin:platform`): create one on a platform, revoke every token of one. */
    this.oauthClients = {
      create: (body: NonNullable<RequestInit<OperationAt<PaymentsPaths, '/api/v1/oauth/clients', 'post'>>['body']>) =>
        this.request('post', '/api/v1/oauth/clients', { body }),
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
      const form = new URLSearchParams({ grant_type: 'client_credentials' });
      if (this.#options.scope) form.set('scope', this.#options.scope);
      const answer = await this.#formCall<TokenAnswer>('/oauth/token', form, true);
      this.#token = { value: answer.access_token, expiresAtMs: Date.now() + answer.expires_in * 1000, scope: answer.scope };
    } finally {
      this.#options.onTokenFetch?.('done');
    }
  }

  /** revoke and introspect: authenticated as the client, not with a token. */
  #clientCall<T>(path: string, fields: Record<string, string>): Promise<T> {
    return this.#formCall<T>(path, new URLSearchParams(fields), false);
  }

  async #formCall<T>(path: string, form: URLSearchParams, retry: boolean): Promise<T> {
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
    const answer = await createTransport({ ...this.#options, fetch: formFetch }).send<T>({
      method: 'POST',
      path: `/api/v2${path}`,
      headers: { authorization: `Basic ${basic}` },
      retry,
    });
    return answer.body;
  }
}

function fetchOf(options: { fetch?: typeof fetch }): typeof fetch {
  return options.fetch ?? globalThis.fetch;
}
