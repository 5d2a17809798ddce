import {
  type AppEnv,
  AppError,
  type CheckoutPage,
  type CheckoutPayment,
  type CheckoutSession,
  type CheckoutSessionList,
  type CheckoutSessionListQuery,
  type CheckoutTypedData,
  type CheckoutWalletSettings,
  type CommandReply,
  type CommandRequest,
  type CreateCheckoutSessionBody,
  type CreateTransactionBody,
  type DomainEvent,
  type EscrowInstructions,
  newEventId,
  notFound,
  type PAYMENTS_COMMANDS,
  paginationMeta,
  TESTNET_OF,
  uuidv7,
  validationError,
} from '@holdfast/contracts';
import { appendToOutboxSql, type Queryable, type Sql } from '@holdfast/db';
import { addressErrors } from '@holdfast/escrow';
import { numberSourceOf } from '@holdfast/http-kit';
import { sha256 } from '@holdfast/secrets';
import { SCHEMA_NAME } from '../../db/pg-schema.js';
import type { Principal } from '../auth/index.js';
import { normalizeAmount, resolveNetwork } from '../money/index.js';
import type { Funding, RelayerService } from '../relayer/index.js';
import { type ControlsGate, canonical, type MoveHook } from '../transactions/index.js';
import type { CheckoutRepository, CheckoutSessionRow } from './repository.js';
import { type CheckoutAction, nextSessionStatus } from './state-machine.js';

export const DEFAULT_EXPIRY_SECONDS = 30 * 60;
export const MAX_EXPIRY_SECONDS = 24 * 60 * 60;
export const MIN_EXPIRY_SECONDS = 60;

/** The idempotency key of a session's transaction: one transaction per session, whatever is retried. */
export const sessionTransactionKey = (sessionId: string) => `checkout_session:${sessionId}`;

/** Who owns the session's transaction (as the Workspace API's forwarded creation names it). */
export interface TransactionOwner {
  platformId: string;
  workspaceId: string | null;
}

export interface CheckoutServiceDeps {
  sql: Sql;
  repository: CheckoutRepository;
  appEnv: AppEnv;
  /** The controls' template check, run at creation so an unknown `templateId` is refused before the payer comes. */
  controls: Pick<ControlsGate, 'prepare'>;
  /** The transactions module's creation (`transactions.create`), as service.ts wires it. */
  createTransaction: (owner: TransactionOwner, body: CreateTransactionBody) => Promise<{ id: string; escrow?: EscrowInstructions }>;
  /** Runs the outbox relay now, after a commit that wrote an event. */
  wakeRelay: () => void;
  /** PAYMENTS_PUBLIC_URL: the origin of the hosted page; the request's origin when unset. */
  publicUrl?: string;
  /** The relayer (hosted page): the typed data its payer signs, and the relay of that signature for the session's platform. */
  relayer?: Pick<RelayerService, 'fundingOf' | 'relay' | 'authorizationsLapsed'>;
  /** The platform's name as the payer reads it. */
  platformName?: (platformId: string) => Promise<string | undefined>;
  /** The EIP-155 chain id of a network. */
  chainId?: (network: string) => number;
  /**
   * The workspace's external wallet settings (appName, appLogoUrl, projectId, allowedNetworks,
   * allowedTemplateIds), when the platform has a workspace that configured them; absent: the ones
   * workspace-service sent (the repository); none: the defaults (the platform's name, no logo,
   * injected wallets only, any network and template).
   */
  walletSettings?: (workspaceId: string) => Promise<WalletSettings | null>;
}

/** What the hosted page and session creation take of a workspace's external wallet configuration. */
export type WalletSettings = Partial<CheckoutWalletSettings>;

const DOMAIN_FIELD_TYPES = {
  name: 'string',
  version: 'string',
  chainId: 'uint256',
  verifyingContract: 'address',
  salt: 'bytes32',
} as const;

/** The typed data as `eth_signTypedData_v4` takes it: the domain's own fields typed, every number a decimal string. */
export function typedDataJson(typed: NonNullable<Funding['typedData']>): CheckoutTypedData {
  const domain = typed.domain as CheckoutTypedData['domain'];
  const fields = (Object.keys(DOMAIN_FIELD_TYPES) as (keyof typeof DOMAIN_FIELD_TYPES)[]).filter((k) => domain[k] !== undefined);
  return {
    domain: {
      ...(domain.name !== undefined ? { name: domain.name } : {}),
      ...(domain.version !== undefined ? { version: domain.version } : {}),
      ...(domain.chainId !== undefined ? { chainId: Number(domain.chainId) } : {}),
      ...(domain.verifyingContract !== undefined ? { verifyingContract: domain.verifyingContract } : {}),
      ...(domain.salt !== undefined ? { salt: domain.salt } : {}),
    },
    types: {
      EIP712Domain: fields.map((name) => ({ name, type: DOMAIN_FIELD_TYPES[name] })),
      ReceiveWithAuthorization: typed.types.ReceiveWithAuthorization.map((f) => ({ name: f.name, type: f.type })),
    },
    primaryType: 'ReceiveWithAuthorization',
    message: {
      from: typed.message.from,
      to: typed.message.to,
      value: typed.message.value.toString(),
      validAfter: typed.message.validAfter.toString(),
      validBefore: typed.message.validBefore.toString(),
      nonce: typed.message.nonce,
    },
  };
}

/** `base-sepolia` -> `Base Sepolia`. */
export const networkTitle = (network: string) =>
  network
    .split('-')
    .map((w) => (w.length > 0 ? w[0]!.toUpperCase() + w.slice(1) : w))
    .join(' ');

/** The session as the payer sees it (never metadata or customer id). */
export function payerView(s: CheckoutSessionRow): CheckoutPayment['session'] {
  return {
    id: s.id,
    // An open session past its expiry is expired for the payer, whether or not the worker came yet.
    status: s.status === 'open' && s.pastExpiry ? 'expired' : s.status,
    amount: s.amount,
    currency: s.currency,
    blockchainNetwork: s.blockchainNetwork,
    toAddress: s.toAddress,
    fromAddress: s.fromAddress,
    successUrl: s.successUrl,
    cancelUrl: s.cancelUrl,
    expiresAt: s.expiresAt,
    transactionId: s.transactionId,
  };
}

/** A return URL: absolute, https (http too in local), no credentials in it. */
export function returnUrl(value: string, field: string, appEnv: AppEnv): string {
  const text = value.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw validationError([{ field, reason: 'must be an absolute URL' }]);
  }
  const allowed = appEnv === 'local' ? ['https:', 'http:'] : ['https:'];
  if (!allowed.includes(url.protocol))
    throw validationError([{ field, reason: appEnv === 'local' ? 'must be an http or https URL' : 'must be an https URL' }]);
  if (url.username || url.password) throw validationError([{ field, reason: 'must not carry a user name or password' }]);
  return text;
}

/** The session as the platform's events show it. */
export const sessionRef = (s: CheckoutSessionRow) => ({
  id: s.id,
  status: s.status,
  transactionId: s.transactionId,
  amount: s.amount,
  currency: s.currency,
  blockchainNetwork: s.blockchainNetwork,
  toAddress: s.toAddress,
  fromAddress: s.fromAddress,
  customerId: s.customerId,
  metadata: s.metadata,
  expiresAt: s.expiresAt,
});

function sessionEvent(type: 'checkout.session.completed' | 'checkout.session.expired', s: CheckoutSessionRow): DomainEvent {
  const now = Date.now();
  return {
    id: newEventId(now),
    type,
    createdAt: new Date(now).toISOString(),
    platformId: s.platformId,
    workspaceId: s.workspaceId,
    data: { session: sessionRef(s) },
  };
}

function refused(s: CheckoutSessionRow, action: CheckoutAction, allowedFrom: readonly string[]): AppError {
  const what = action === 'attach_payer' ? 'pay' : action;
  return new AppError('INVALID_STATE_TRANSITION', `Cannot ${what} a checkout session that is ${s.status}`, {
    status: s.status,
    action,
    allowedFrom,
  });
}

/**
 * Moves a session through the state machine inside the caller's database transaction and writes
 * the move's event (outbox) with it. The session must be locked by the caller.
 */
async function moveSession(
  tx: Queryable,
  repository: CheckoutRepository,
  s: CheckoutSessionRow,
  action: CheckoutAction,
  patch: { fromAddress?: string | null } = {},
): Promise<CheckoutSessionRow> {
  const decision = nextSessionStatus(s.status, action);
  if (!decision.ok) throw refused(s, action, decision.allowedFrom);
  const after = await repository.applyMove(tx, s.id, decision.to, patch);
  if (decision.event === 'checkout.session.completed' || decision.event === 'checkout.session.expired')
    await appendToOutboxSql(tx, SCHEMA_NAME, [sessionEvent(decision.event, after)]);
  return after;
}

/**
 * The completion hook the transaction moves run (service.ts gives it to `createTransactionMoves`):
 * when a session's transaction becomes `escrowed`, the session becomes `complete` and
 * `checkout.session.completed` is written in the same database transaction as the move and its
 * `transaction.escrowed`, so neither is ever seen without the other. In-transaction rather than a
 * consumer of the outbox events: no second delivery path, no window where the transaction is
 * escrowed and the session still `processing`. It reads only on `transaction.escrowed` (one
 * indexed lookup by transaction id); a transaction of no session is left alone.
 */
export function checkoutCompletion(repository: CheckoutRepository): MoveHook {
  return async (tx, { after, event }) => {
    if (event?.type !== 'transaction.escrowed') return;
    const session = await repository.lockByTransaction(tx, after.id);
    // A session already complete (an escrow seen again after a reorg withdrew it) stays so.
    if (session?.status !== 'processing') return;
    await moveSession(tx, repository, session, 'complete');
  };
}

export function createCheckoutService(deps: CheckoutServiceDeps) {
  const { sql, repository, appEnv } = deps;
  const urlOf = (origin: string, id: string) => `${deps.publicUrl ?? origin}/pay/${id}`;
  // A session reads the settings of its own platform's workspace (the principal's, stored on the
  // session): that key is what keeps one workspace's settings off another's platforms.
  const walletSettingsOf = async (workspaceId: string | null): Promise<WalletSettings | null> =>
    workspaceId ? ((await deps.walletSettings?.(workspaceId)) ?? (await repository.walletSettings(workspaceId))) : null;

  /**
   * cmd.payments.checkout-wallet-settings.set: workspace-service's merged external wallet configs.
   * Nothing names a platform: the settings are keyed by the command's workspace and only sessions
   * whose platform belongs to that workspace read them (walletSettingsOf).
   */
  async function setWalletSettings(
    r: CommandRequest<(typeof PAYMENTS_COMMANDS)['setCheckoutWalletSettings']>,
  ): Promise<CommandReply<(typeof PAYMENTS_COMMANDS)['setCheckoutWalletSettings']>> {
    return { workspaceId: r.workspaceId, applied: await repository.putWalletSettings(r.workspaceId, r.settings, r.asOf) };
  }

  /**
   * The workspace's bounds on a session (empty list: any): its network among allowedNetworks, its
   * templateId among allowedTemplateIds; hold terms sent inline are refused when the workspace
   * names its templates, since they would step around that list.
   */
  function checkBounds(settings: WalletSettings | null, network: string, templateId: string | undefined, inline: boolean) {
    const networks = settings?.allowedNetworks ?? [];
    // Outside production a mainnet runs as its testnet (resolveNetwork), so the workspace's `base`
    // allows the session that asked for base and runs on base-sepolia.
    const allowed = appEnv === 'production' ? networks : [...networks, ...networks.map((n) => TESTNET_OF[n] ?? n)];
    if (networks.length > 0 && !allowed.includes(network))
      throw validationError([{ field: 'blockchainNetwork', reason: `must be one of the workspace's networks: ${networks.join(', ')}` }]);
    const templates = settings?.allowedTemplateIds ?? [];
    if (templates.length === 0) return;
    if (inline)
      throw validationError([{ field: 'template', reason: 'must not be sent: the workspace allows only its templates (send templateId)' }]);
    if (templateId === undefined || !templates.includes(templateId))
      throw validationError([{ field: 'templateId', reason: `must be one of the workspace's templates: ${templates.join(', ')}` }]);
  }

  const toSession = (s: CheckoutSessionRow, origin: string): CheckoutSession => ({
    id: s.id,
    platformId: s.platformId,
    status: s.status,
    url: urlOf(origin, s.id),
    x402Url: `${deps.publicUrl ?? origin}/api/v2/x402/checkout/${s.id}`,
    amount: s.amount,
    currency: s.currency,
    blockchainNetwork: s.blockchainNetwork,
    toAddress: s.toAddress,
    fromAddress: s.fromAddress,
    templateId: s.templateId,
    customerId: s.customerId,
    metadata: s.metadata,
    successUrl: s.successUrl,
    cancelUrl: s.cancelUrl,
    expiresAt: s.expiresAt,
    transactionId: s.transactionId,
    idempotencyKey: s.idempotencyKey,
    completedAt: s.completedAt,
    expiredAt: s.expiredAt,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  });

  /** The first result of an idempotency key, or 422 when the key was used with other parameters. */
  function replayOf(existing: CheckoutSessionRow, fingerprint: string, origin: string) {
    if (existing.requestFingerprint !== fingerprint) {
      throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This idempotency key was already used with other parameters', {
        field: 'idempotencyKey',
        checkoutSessionId: existing.id,
      });
    }
    return { session: toSession(existing, origin), replayed: true };
  }

  async function create(
    principal: Pick<Principal, 'platformId' | 'workspaceId'>,
    body: CreateCheckoutSessionBody,
    headerKey: string | undefined,
    origin: string,
  ): Promise<{ session: CheckoutSession; replayed: boolean }> {
    // Everything the request alone decides, before any read or write (as a transaction's creation).
    if (body.idempotencyKey !== undefined && headerKey !== undefined && body.idempotencyKey !== headerKey) {
      throw validationError([
        { field: 'idempotencyKey', reason: 'differs from the Idempotency-Key header; send one, or the same in both' },
      ]);
    }
    const idempotencyKey = body.idempotencyKey ?? headerKey ?? null;
    const currency = body.currency ?? 'USDC';
    const amount = normalizeAmount(body.amount, 'amount', { currency, source: numberSourceOf(body, 'amount') });
    const { network } = resolveNetwork(appEnv, body.blockchainNetwork);
    const toAddress = body.toAddress.trim();
    if (toAddress === '') throw validationError([{ field: 'toAddress', reason: 'must not be blank' }]);
    const badAddress = addressErrors(network, { toAddress });
    if (badAddress.length > 0) throw validationError(badAddress);
    const successUrl = returnUrl(body.successUrl, 'successUrl', appEnv);
    const cancelUrl = returnUrl(body.cancelUrl, 'cancelUrl', appEnv);
    const expiresInSeconds = body.expiresInSeconds ?? DEFAULT_EXPIRY_SECONDS;
    if (!Number.isInteger(expiresInSeconds) || expiresInSeconds < MIN_EXPIRY_SECONDS || expiresInSeconds > MAX_EXPIRY_SECONDS)
      throw validationError([
        { field: 'expiresInSeconds', reason: `must be an integer from ${MIN_EXPIRY_SECONDS} to ${MAX_EXPIRY_SECONDS}` },
      ]);
    const fingerprint = sha256(
      canonical({
        toAddress: toAddress.toLowerCase(),
        amount,
        currency,
        blockchainNetwork: network,
        templateId: body.templateId,
        template: body.template,
        customerId: body.customerId,
        metadata: body.metadata ?? {},
        successUrl,
        cancelUrl,
        expiresInSeconds,
      }),
    );
    if (idempotencyKey) {
      const existing = await repository.findByIdempotencyKey(principal.platformId, idempotencyKey);
      if (existing) return replayOf(existing, fingerprint, origin);
    }
    checkBounds(await walletSettingsOf(principal.workspaceId ?? null), network, body.templateId, body.template !== undefined);
    // The template the transaction will run: an unknown templateId is 404 now, not when the payer comes.
    const prepared = await deps.controls.prepare(principal.platformId, {
      ...(body.templateId ? { templateId: body.templateId } : {}),
      ...(body.template ? { template: body.template as Record<string, unknown> } : {}),
    });
    const row = await repository.insert(
      {
        id: uuidv7(),
        platformId: principal.platformId,
        workspaceId: principal.workspaceId ?? null,
        amount,
        currency,
        blockchainNetwork: network,
        toAddress,
        templateId: prepared.templateId,
        template: (body.template as Record<string, unknown> | undefined) ?? null,
        customerId: body.customerId ?? null,
        metadata: body.metadata ?? {},
        successUrl,
        cancelUrl,
        idempotencyKey,
        requestFingerprint: fingerprint,
      },
      expiresInSeconds,
    );
    if (row) return { session: toSession(row, origin), replayed: false };
    // Another request with the key committed between the lookup and the insert.
    const existing = idempotencyKey ? await repository.findByIdempotencyKey(principal.platformId, idempotencyKey) : null;
    if (!existing) throw new Error('checkout session insert conflicted without an idempotency key');
    return replayOf(existing, fingerprint, origin);
  }

  async function get(principal: Pick<Principal, 'platformId'>, id: string, origin: string): Promise<CheckoutSession> {
    const row = await repository.get(sql, id, principal.platformId);
    if (!row) throw notFound('Checkout session');
    return toSession(row, origin);
  }

  async function list(
    principal: Pick<Principal, 'platformId'>,
    query: CheckoutSessionListQuery,
    origin: string,
  ): Promise<CheckoutSessionList> {
    const { rows, total } = await repository.list(principal.platformId, {
      page: query.page,
      limit: query.limit,
      ...(query.status ? { status: query.status } : {}),
      ...(query.customerId ? { customerId: query.customerId } : {}),
      ...(query.transactionId ? { transactionId: query.transactionId } : {}),
    });
    return { data: rows.map((r) => toSession(r, origin)), pagination: paginationMeta(query.page, query.limit, total) };
  }

  /** POST …/expire: an open session expires now; an expired one answers as it is; others 409. */
  async function expire(principal: Pick<Principal, 'platformId'>, id: string, origin: string): Promise<CheckoutSession> {
    const { session, moved } = await sql.begin(async (tx) => {
      const s = await repository.lock(tx, id, principal.platformId);
      if (!s) throw notFound('Checkout session');
      if (s.status === 'expired') return { session: s, moved: false };
      return { session: await moveSession(tx, repository, s, 'expire'), moved: true };
    });
    if (moved) deps.wakeRelay();
    return toSession(session, origin);
  }

  /**
   * The payer's wallet names its address (the hosted page). The session moves to `processing` with
   * that address first (so a second payer is refused at once), then its transaction is created
   * through the transactions module under the session's own idempotency key (so a retry, or a
   * crash between the two steps, finds the same transaction), then the session records it. A
   * creation refused (a sender limit, a template since deleted) puts the session back to `open`.
   */
  async function attachPayer(sessionId: string, fromAddressInput: string): Promise<CheckoutPayment> {
    const fromAddress = fromAddressInput.trim();
    if (fromAddress === '') throw validationError([{ field: 'fromAddress', reason: 'must not be blank' }]);
    const claim = await sql.begin(async (tx) => {
      const s = await repository.lock(tx, sessionId);
      if (!s) throw notFound('Checkout session');
      if (s.status === 'open' && s.pastExpiry) {
        // Its time ran out before the expiry worker came: expire it now (committed), then refuse.
        return { kind: 'expired' as const, session: await moveSession(tx, repository, s, 'expire') };
      }
      if (s.status === 'open') {
        const badAddress = addressErrors(s.blockchainNetwork, { fromAddress });
        if (badAddress.length > 0) throw validationError(badAddress);
        if (fromAddress.toLowerCase() === s.toAddress.toLowerCase())
          throw validationError([{ field: 'fromAddress', reason: 'must differ from the session’s toAddress' }]);
        return { kind: 'claimed' as const, session: await moveSession(tx, repository, s, 'attach_payer', { fromAddress }) };
      }
      if (s.status === 'expired') throw refused(s, 'attach_payer', ['open']);
      if (s.fromAddress?.toLowerCase() !== fromAddress.toLowerCase())
        throw new AppError('CONFLICT', 'Another payer already pays this checkout session', { field: 'fromAddress' });
      return { kind: 'again' as const, session: s };
    });
    if (claim.kind === 'expired') {
      deps.wakeRelay();
      throw refused(claim.session, 'attach_payer', ['open']);
    }
    const s = claim.session;
    let transaction: { id: string; escrow?: EscrowInstructions };
    try {
      transaction = await deps.createTransaction(
        { platformId: s.platformId, workspaceId: s.workspaceId },
        {
          fromAddress,
          toAddress: s.toAddress,
          amount: s.amount,
          currency: s.currency,
          blockchainNetwork: s.blockchainNetwork,
          orchestrationType: 'platform',
          signerType: 'external_wallet',
          ...(s.templateId ? { templateId: s.templateId } : {}),
          ...(s.template ? { template: s.template as CreateTransactionBody['template'] } : {}),
          ...(s.customerId ? { customerId: s.customerId } : {}),
          metadata: s.metadata,
          idempotencyKey: sessionTransactionKey(s.id),
        },
      );
    } catch (error) {
      if (claim.kind === 'claimed' && error instanceof AppError) {
        // Nothing was created: the session waits for a payer again.
        await sql.begin(async (tx) => {
          const now = await repository.lock(tx, s.id);
          if (now?.status === 'processing' && now.transactionId === null && now.fromAddress === fromAddress)
            await moveSession(tx, repository, now, 'release_payer', { fromAddress: null });
        });
      }
      throw error;
    }
    const recorded =
      s.transactionId === transaction.id
        ? s
        : await sql.begin(async (tx) => {
            const now = await repository.lock(tx, s.id);
            if (!now) throw notFound('Checkout session');
            return now.transactionId === null ? repository.setTransaction(tx, s.id, transaction.id) : now;
          });
    return { session: payerView(recorded), escrow: transaction.escrow ?? null };
  }

  function requireRelayer() {
    if (!deps.relayer)
      throw new AppError('CONTRACT_NOT_AVAILABLE', 'Payments by signature are not available here', { reason: 'no_relayer' });
    return deps.relayer;
  }

  /**
   * GET …/page: what the hosted page shows and signs. Public (the session id is the capability):
   * nothing of the platform's but the name it shows.
   */
  async function page(sessionId: string): Promise<CheckoutPage> {
    const s = await repository.get(sql, sessionId);
    if (!s) throw notFound('Checkout session');
    const settings = await walletSettingsOf(s.workspaceId);
    const name = settings?.appName ?? (await deps.platformName?.(s.platformId)) ?? 'Holdfast';
    const embedded = s.template as { holdPeriodSeconds?: number; rescind?: { allowed?: boolean } } | null;
    let payment: CheckoutPage['payment'] = null;
    let escrow: CheckoutPage['escrow'] = null;
    let holdDeadline: string | null = null;
    let rescindAllowed = embedded?.rescind?.allowed ?? true;
    if (s.transactionId) {
      const funding = await requireRelayer().fundingOf({ platformId: s.platformId }, s.transactionId);
      escrow = funding.escrow;
      holdDeadline = funding.row.holdDeadline ?? null;
      const policy = funding.row.rescindPolicy as { allowed?: boolean } | null;
      if (policy?.allowed !== undefined) rescindAllowed = policy.allowed;
      payment = {
        transactionStatus: funding.row.status,
        amountBaseUnits: funding.amountBaseUnits?.toString() ?? null,
        balanceBaseUnits: funding.balance?.toString() ?? null,
        typedData: funding.typedData ? typedDataJson(funding.typedData) : null,
        relay: funding.relay,
      };
    }
    return {
      session: payerView(s),
      escrow,
      platform: { name, logoUrl: settings?.appLogoUrl?.startsWith('https://') ? settings.appLogoUrl : null },
      wallets: { walletConnectProjectId: settings?.projectId ?? null, allowedNetworks: settings?.allowedNetworks ?? [] },
      chain: { id: deps.chainId?.(s.blockchainNetwork) ?? 0, name: networkTitle(s.blockchainNetwork) },
      terms: {
        holdDeadline,
        holdPeriodSeconds: embedded?.holdPeriodSeconds ?? null,
        rescindAllowed,
      },
      payment,
    };
  }

  /**
   * What the shell of `/pay/{id}` must allow for this session (its CSP, routes.ts): WalletConnect's
   * hosts only when the session's workspace configured a WalletConnect `projectId`, the same
   * settings GET …/page answers. An unknown session gets the strict policy (its page says
   * "not found").
   */
  async function pagePolicy(sessionId: string): Promise<{ walletConnect: boolean }> {
    const s = await repository.get(sql, sessionId);
    if (!s) return { walletConnect: false };
    const settings = await walletSettingsOf(s.workspaceId);
    return { walletConnect: Boolean(settings?.projectId) };
  }

  /**
   * POST …/authorization: the payer's signature of the page's typed data, relayed for the session's
   * transaction as the platform's own escrow-authorization call would be, without its credential
   * (the session names the platform). 202 when relayed now, 200 for the same signature again.
   */
  async function authorize(sessionId: string, signature: string): Promise<{ status: 200 | 202; page: CheckoutPage }> {
    const s = await repository.get(sql, sessionId);
    if (!s) throw notFound('Checkout session');
    const view = payerView(s);
    if (view.status === 'expired') throw refused({ ...s, status: 'expired' }, 'attach_payer', ['open']);
    if (!s.transactionId)
      throw new AppError('INVALID_STATE_TRANSITION', 'Name the payer first (POST …/payer)', { status: s.status, action: 'authorize' });
    const relayer = requireRelayer();
    const funding = await relayer.fundingOf({ platformId: s.platformId }, s.transactionId);
    // The window of the page's typed data now: a new one after a relay that ended without a lock.
    const { window } = funding;
    let status: 200 | 202;
    try {
      ({ status } = await relayer.relay({ platformId: s.platformId }, s.transactionId, {
        kind: 'authorization',
        validAfter: window.validAfter,
        validBefore: window.validBefore,
        signature,
      }));
    } catch (error) {
      // The platform's budget and spending are its own: the payer hears only that it cannot go now.
      if (error instanceof AppError && error.code === 'RELAYER_BUDGET_EXHAUSTED')
        throw new AppError('RELAYER_BUDGET_EXHAUSTED', 'Payments by signature are paused for this merchant; try again later');
      throw error;
    }
    return { status, page: await page(sessionId) };
  }

  /**
   * One pass of the expiry worker: open sessions past `expiresAt` (at most `limit`, claimed with
   * `skip locked` so instances share the work) become `expired`, each with its event, in one
   * database transaction. Then processing sessions past `expiresAt` whose transaction was never
   * funded: each becomes `expired` once no signature can still lock it (docs/checkout.md "A payment
   * that never locks"); one still in flight is looked at again on a later pass. Returns how many it
   * expired.
   */
  async function expireDue(limit: number): Promise<number> {
    const expired = await sql.begin(async (tx) => {
      const due = await repository.claimExpired(tx, limit);
      for (const s of due) await moveSession(tx, repository, s, 'expire');
      return due.length;
    });
    const unfunded = await sql.begin(async (tx) => {
      let moved = 0;
      for (const s of await repository.claimUnfundedPastExpiry(tx, limit)) {
        const lapsed =
          s.transactionId === null ||
          (deps.relayer ? await deps.relayer.authorizationsLapsed({ platformId: s.platformId }, s.transactionId) : true);
        if (lapsed) {
          await moveSession(tx, repository, s, 'expire_unfunded');
          moved += 1;
        } else await repository.touch(tx, s.id);
      }
      return moved;
    });
    if (expired + unfunded > 0) deps.wakeRelay();
    return expired + unfunded;
  }

  return {
    create,
    get,
    list,
    expire,
    attachPayer,
    page,
    pagePolicy,
    authorize,
    expireDue,
    setWalletSettings,
    msUntilNextExpiry: repository.msUntilNextExpiry,
  };
}
export type CheckoutService = ReturnType<typeof createCheckoutService>;
