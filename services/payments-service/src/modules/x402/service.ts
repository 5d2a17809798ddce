import type { CreatedTransaction } from '@holdfast/contracts';
import {
  AppError,
  type CreateTransactionBody,
  notFound,
  type X402CheckoutPaid,
  X402PaymentPayload,
  type X402PaymentRequired,
  type X402PaymentRequirements,
  type X402Request,
  type X402Settlement,
  type X402SettleResponse,
  type X402SupportedResponse,
  type X402VerifyResponse,
} from '@holdfast/contracts';
import type { Sql } from '@holdfast/db';
import { readEip712Domain, type TransferAuthorization } from '@holdfast/escrow';
import type { Logger } from '@holdfast/logging';
import type { RowWaiter } from '@holdfast/runtime';
import type { Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { getAddress, type Hash, type Hex, isAddress, isHex } from 'viem';
import type { Principal } from '../auth/index.js';
import type { CheckoutService } from '../checkout/index.js';
import { roundHalfUp, TOKEN_DECIMALS, toBaseUnits } from '../money/index.js';
import { checkoutWindow, type RelayerChain, type RelayerService, type RelayRow } from '../relayer/index.js';
import type { ChainAccess } from '../settlement/index.js';
import type { TransactionRow, TransactionsRepository } from '../transactions/index.js';
import { caip2Of, ESCROW_SCHEME, EXACT_REASONS, escrowReason, networkOfCaip2, X402_REASONS } from './protocol.js';

export interface X402Deps {
  sql: Sql;
  relayer: RelayerService;
  relayerChain: RelayerChain;
  chain: ChainAccess;
  transactions: TransactionsRepository;
  /** transactions.create of the platform (controls, idempotency, the outbox event). */
  createTransaction: (principal: Principal, body: CreateTransactionBody) => Promise<Static<typeof CreatedTransaction>>;
  /** The checkout module: a session's payer, page and authorization (the `holdfast-escrow` scheme pays a session). */
  checkout: Pick<CheckoutService, 'get' | 'page' | 'authorize'>;
  /** The platform of a checkout session (its id is the capability of a machine client, as of the hosted page's). */
  sessionPlatform: (sessionId: string) => Promise<string | undefined>;
  settleWaitMs: number;
  /** NOTIFYed with a relay's id when the relayer worker records its outcome (RELAY_SETTLED_CHANNEL). */
  relaySettled: RowWaiter;
  publicUrl?: string;
  logger: Logger;
}

/** The currency of the token an x402 payment moves: the network's USDC (MockUSDC in local). */
const CURRENCY = 'USDC';

/** An x402 refusal: the reason string of the protocol, and what to tell the caller. */
class Invalid {
  constructor(
    readonly reason: string,
    readonly message: string,
    readonly payer?: string,
    readonly holdfastReason?: string,
  ) {}
}

/** A refusal as x402's VerifyResponse. */
function notValid(refusal: Invalid): X402VerifyResponse {
  return {
    isValid: false,
    invalidReason: refusal.reason,
    invalidMessage: refusal.message,
    ...(refusal.payer ? { payer: refusal.payer } : {}),
    ...(refusal.holdfastReason ? { extra: { holdfast: { reason: refusal.holdfastReason } } } : {}),
  };
}

/** A refusal as x402's SettleResponse: nothing was sent (`transaction` empty). */
function notSettled(refusal: Invalid, network: string): X402SettleResponse {
  return {
    success: false,
    errorReason: refusal.reason,
    errorMessage: refusal.message,
    ...(refusal.payer ? { payer: refusal.payer } : {}),
    transaction: '',
    network,
    ...(refusal.holdfastReason ? { extra: { holdfast: { reason: refusal.holdfastReason } } } : {}),
  };
}

/** An `exact` payment, parsed and checked against its requirements (not yet against the chain). */
interface ExactPayment {
  network: string;
  caip2: string;
  token: Hex;
  payer: Hex;
  authorization: TransferAuthorization;
  signature: Hex;
  /** What makes the same payment the same Holdfast transaction: one per network, payer and EIP-3009 nonce. */
  idempotencyKey: string;
}

const uint = (v: unknown) =>
  typeof v === 'string' && /^[0-9]{1,78}$/.test(v)
    ? BigInt(v)
    : typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
      ? BigInt(v)
      : null;

/**
 * Holdfast as an x402 v2 facilitator (docs/x402.md): `supported`, `verify` and `settle` of the
 * protocol, on the relayer. A settled `exact` payment is a raw Holdfast transaction of the seller's
 * platform paid by the buyer's `TransferWithAuthorization`, relayed (the platform's gas budget) and
 * completed through settlement's submit-hash path once mined, as every other transaction.
 */
export function createX402Service(deps: X402Deps) {
  const { sql, relayer, relayerChain, chain, transactions } = deps;
  const log = deps.logger.child({ component: 'x402' });
  const domains = new Map<string, Awaited<ReturnType<typeof readEip712Domain>>>();

  async function tokenDomain(network: string, token: Hex) {
    const key = `${network}:${token}`;
    let domain = domains.get(key);
    if (!domain) {
      domain = await chain.rpc('eip712Domain', () => readEip712Domain(relayerChain.client(network), token));
      domains.set(key, domain);
    }
    return domain;
  }

  const networks = () => relayerChain.networks().map((network) => ({ network, caip2: caip2Of(chain.chainId(network)) }));

  /** GET /x402/supported: `exact` on every network with a relayer key and a USDC token. */
  async function supported(): Promise<X402SupportedResponse> {
    const kinds: X402SupportedResponse['kinds'] = [];
    const signers: Record<string, string[]> = {};
    for (const { network, caip2 } of networks()) {
      let token: Hex;
      try {
        token = chain.tokenAddress(network, CURRENCY);
      } catch {
        continue;
      }
      const domain = await tokenDomain(network, token).catch(() => null);
      const extra = { asset: token, ...(domain ? { name: domain.name, version: domain.version } : {}), decimals: TOKEN_DECIMALS };
      kinds.push({ x402Version: 2, scheme: 'exact', network: caip2, extra });
      const escrow = chain.escrowTerms(network, CURRENCY).contractAddress;
      if (escrow) kinds.push({ x402Version: 2, scheme: ESCROW_SCHEME, network: caip2, extra: { ...extra, escrow } });
      const account = relayerChain.account(network);
      if (account) signers[caip2] = [account.address];
    }
    return { kinds, extensions: [], signers };
  }

  /** The protocol's own checks of an `exact` payment against its requirements; nothing read from the chain but the token's domain. */
  async function parseExact(req: X402Request): Promise<ExactPayment> {
    const { paymentPayload: payload, paymentRequirements: required } = req;
    const auth = (payload.payload as { authorization?: Record<string, unknown> }).authorization;
    const claimedPayer = typeof auth?.from === 'string' ? auth.from : undefined;
    const invalid = (reason: string, message: string) => new Invalid(reason, message, claimedPayer);
    if (req.x402Version !== 2 || payload.x402Version !== 2) throw invalid(X402_REASONS.version, 'Only x402 version 2 is served here');
    if (required.scheme !== 'exact') throw invalid(X402_REASONS.unsupportedScheme, `The scheme ${required.scheme} is not served here`);
    if (payload.accepted.scheme !== required.scheme) throw invalid(EXACT_REASONS.scheme, "The payload's scheme is not the requirements'");
    if (payload.accepted.network !== required.network)
      throw invalid(EXACT_REASONS.networkMismatch, "The payload's network is not the requirements'");
    const network = networkOfCaip2(required.network, networks());
    if (!network) throw invalid(X402_REASONS.network, `The network ${required.network} is not served here (see /x402/supported)`);
    const token = chain.tokenAddress(network, CURRENCY);
    if (!isAddress(required.asset) || getAddress(required.asset) !== token) {
      throw invalid(X402_REASONS.requirements, `The asset must be ${token}, the ${CURRENCY} of ${required.network}`);
    }
    for (const field of ['asset', 'amount', 'payTo'] as const) {
      if (payload.accepted[field].toLowerCase() !== required[field].toLowerCase())
        throw invalid(X402_REASONS.requirements, `The payload's accepted ${field} is not the requirements'`);
    }
    const extra = required.extra ?? {};
    if (typeof extra.name !== 'string' || typeof extra.version !== 'string')
      throw invalid(EXACT_REASONS.missingDomain, 'The requirements name no EIP-712 domain (extra.name, extra.version)');
    const domain = await tokenDomain(network, token);
    if (extra.name !== domain.name) throw invalid(EXACT_REASONS.tokenName, `The token's EIP-712 name is ${domain.name}`);
    if (extra.version !== domain.version) throw invalid(EXACT_REASONS.tokenVersion, `The token's EIP-712 version is ${domain.version}`);
    const signature = (payload.payload as { signature?: unknown }).signature;
    const value = uint(auth?.value);
    const validAfter = uint(auth?.validAfter);
    const validBefore = uint(auth?.validBefore);
    if (
      !auth ||
      typeof auth.from !== 'string' ||
      !isAddress(auth.from) ||
      typeof auth.to !== 'string' ||
      !isAddress(auth.to) ||
      value === null ||
      validAfter === null ||
      validBefore === null ||
      typeof auth.nonce !== 'string' ||
      !isHex(auth.nonce) ||
      auth.nonce.length !== 66 ||
      typeof signature !== 'string' ||
      !isHex(signature)
    ) {
      throw invalid(
        X402_REASONS.payload,
        'The payload must be {signature, authorization: {from, to, value, validAfter, validBefore, nonce}} (EIP-3009)',
      );
    }
    if (!isAddress(required.payTo) || getAddress(auth.to) !== getAddress(required.payTo))
      throw invalid(EXACT_REASONS.recipient, 'The authorization pays another address than payTo');
    if (value !== BigInt(required.amount))
      throw invalid(EXACT_REASONS.value, 'The authorization moves another amount than the requirements');
    const payer = getAddress(auth.from);
    const nonce = auth.nonce.toLowerCase() as Hex;
    return {
      network,
      caip2: required.network,
      token,
      payer,
      authorization: { from: payer, to: getAddress(auth.to), value, validAfter, validBefore, nonce },
      signature: signature as Hex,
      idempotencyKey: `x402:${required.network}:${payer.toLowerCase()}:${nonce}`,
    };
  }

  /** The relayer's refusal as the x402 reason of the scheme; other errors are Holdfast's own (503, 429). */
  function asInvalid(error: unknown, payer: string): Invalid {
    if (error instanceof Invalid) return error;
    if (error instanceof AppError && error.code === 'AUTHORIZATION_REFUSED') {
      const reason = String((error.details as { reason?: string } | undefined)?.reason ?? '');
      return new Invalid(EXACT_REASONS[reason as keyof typeof EXACT_REASONS] ?? X402_REASONS.payload, error.message, payer, reason);
    }
    if (error instanceof AppError && error.code === 'INVALID_STATE_TRANSITION') {
      return new Invalid(X402_REASONS.transactionState, error.message, payer);
    }
    throw error;
  }

  /** POST /x402/verify: every check of a settle, and nothing sent. */
  async function verify(principal: Principal, req: X402Request, origin = ''): Promise<X402VerifyResponse> {
    if (req.paymentRequirements.scheme === ESCROW_SCHEME) return verifyEscrow(principal, req, origin);
    let payment: ExactPayment | undefined;
    try {
      payment = await parseExact(req);
      await relayer.checkTransfer(payment.network, payment.token, payment.authorization, payment.signature);
      return { isValid: true, payer: payment.payer };
    } catch (error) {
      return notValid(asInvalid(error, payment?.payer ?? ''));
    }
  }

  const statusUrl = (transactionId: string) => `${deps.publicUrl ?? ''}/api/v2/x402/settlements/${transactionId}`;

  /** What a relay's state says of the settlement: the mined one is checked on chain again (a reorg is reported, never re-sent). */
  async function outcome(relay: RelayRow, row: TransactionRow): Promise<X402Settlement> {
    const holdfast = { transactionId: row.id, transactionStatus: row.status, relayId: relay.id, statusUrl: statusUrl(row.id) };
    const base = { payer: getAddress(row.fromAddress), network: caip2Of(chain.chainId(relay.network)), extra: { holdfast } };
    const hash = relay.minedHash ?? relay.txHash;
    if (relay.status === 'submitted') {
      return {
        status: 'pending',
        settlement: { ...base, success: false, errorReason: X402_REASONS.pending, errorMessage: 'Sent, not mined yet', transaction: hash },
      };
    }
    if (relay.status === 'mined') {
      const receipt = await chain.receipt(relay.network, hash as Hash);
      if (!receipt) {
        return {
          status: 'reorged',
          settlement: {
            ...base,
            success: false,
            errorReason: X402_REASONS.reorged,
            errorMessage: 'The mined transaction is no longer on the chain (reorg); Holdfast does not send it again',
            transaction: hash,
          },
        };
      }
      const amount = relay.request.value;
      return {
        status: 'settled',
        settlement: { ...base, success: true, transaction: hash, ...(typeof amount === 'string' ? { amount } : {}) },
      };
    }
    return {
      status: 'failed',
      settlement: {
        ...base,
        success: false,
        errorReason: EXACT_REASONS.transactionFailed,
        errorMessage: relay.status === 'reverted' ? 'The transfer reverted on chain' : (relay.error ?? 'The transfer was never mined'),
        transaction: hash,
      },
    };
  }

  /**
   * Whether a payload is byte for byte the one an earlier relay sent. The idempotency key names only
   * (network, payer, nonce): without this a buyer could repeat a settled nonce with another payee,
   * amount or a junk signature and be answered the earlier payment's success.
   */
  function sameTransfer(relay: RelayRow, payment: ExactPayment): boolean {
    const r = relay.request as Record<string, unknown>;
    const a = payment.authorization;
    return (
      r.kind === 'transfer' &&
      r.from === a.from.toLowerCase() &&
      r.to === a.to.toLowerCase() &&
      r.value === a.value.toString() &&
      r.validAfter === a.validAfter.toString() &&
      r.validBefore === a.validBefore.toString() &&
      r.nonce === a.nonce.toLowerCase() &&
      r.signature === payment.signature.toLowerCase()
    );
  }

  /** The earlier settlement of this very payload (a repeat), or a refusal when its nonce paid something else. */
  async function repeatOf(principal: Principal, payment: ExactPayment): Promise<X402SettleResponse | null> {
    const before = await settledBefore(principal, payment.idempotencyKey);
    if (!before?.relay || !before.row) return null;
    if (!sameTransfer(before.relay, payment)) {
      return notSettled(
        new Invalid(EXACT_REASONS.nonce_used, 'This authorization nonce already paid another payment', payment.payer, 'nonce_used'),
        payment.caip2,
      );
    }
    return (await outcome(await awaitReceipt(principal, before.relay), before.row)).settlement;
  }

  /** The transaction and relay of a payment settled before by this platform, if any. */
  async function settledBefore(principal: Principal, key: string) {
    const row = await transactions.findByIdempotencyKey(sql, principal.platformId, key);
    if (!row) return null;
    const [relay] = await relayer.ofTransaction(row.id);
    return relay
      ? { row: (await transactions.find(sql, row.id, principal.platformId)) ?? (row as TransactionRow), relay }
      : { row: null, relay: null };
  }

  /**
   * Waits (up to X402_SETTLE_WAIT) for the relayer worker, of any instance, to record the relay's
   * outcome: woken by its NOTIFY, registered before the row is read again so none is missed.
   */
  async function awaitReceipt(principal: { platformId: string }, relay: RelayRow): Promise<RelayRow> {
    if (relay.status !== 'submitted') return relay;
    const wait = deps.relaySettled.waitFor(relay.id, deps.settleWaitMs);
    const current = (await relayer.relayOf(principal, relay.id)) ?? relay;
    if (current.status !== 'submitted') {
      wait.cancel();
      return current;
    }
    return (await wait.done) ? ((await relayer.relayOf(principal, relay.id)) ?? current) : current;
  }

  /**
   * POST /x402/settle. The payment's idempotency key (network, payer, EIP-3009 nonce) makes the
   * same payload one Holdfast transaction, and the relayer one on-chain transaction for it: a
   * repeat, concurrent or after a crash, answers the first's.
   */
  async function settle(principal: Principal, req: X402Request, origin = ''): Promise<X402SettleResponse> {
    if (req.paymentRequirements.scheme === ESCROW_SCHEME) return settleEscrow(principal, req, origin);
    const network = req.paymentRequirements.network;
    let payment: ExactPayment | undefined;
    try {
      payment = await parseExact(req);
      const repeat = await repeatOf(principal, payment);
      if (repeat) return repeat;
      // Checked before the transaction exists: a refused payment leaves nothing behind.
      await relayer.checkTransfer(payment.network, payment.token, payment.authorization, payment.signature);
      const created = await deps.createTransaction(principal, {
        fromAddress: payment.payer,
        toAddress: payment.authorization.to,
        amount: roundHalfUp(payment.authorization.value, TOKEN_DECIMALS, TOKEN_DECIMALS),
        currency: CURRENCY,
        blockchainNetwork: payment.network as CreateTransactionBody['blockchainNetwork'],
        orchestrationType: 'raw',
        signerType: 'external_wallet',
        idempotencyKey: payment.idempotencyKey,
        metadata: {
          x402: {
            scheme: 'exact',
            network: payment.caip2,
            ...(req.paymentPayload.resource ? { resource: req.paymentPayload.resource.url } : {}),
          },
        },
      });
      const relayed = await relayer.relayTransfer(principal, created.id, payment.authorization, payment.signature);
      if (relayed.status === 202)
        log.info({ transactionId: created.id, relayId: relayed.relay.id, txHash: relayed.relay.txHash }, 'x402 payment relayed');
      const relay = await awaitReceipt(principal, relayed.relay);
      const row = (await transactions.find(sql, created.id, principal.platformId)) ?? relayed.row;
      return (await outcome(relay, row)).settlement;
    } catch (error) {
      // A concurrent settle of the same payload may have relayed it meanwhile (its nonce is then used): its answer.
      if (payment) {
        const since = await repeatOf(principal, payment).catch(() => null);
        if (since) return since;
      }
      return notSettled(asInvalid(error, payment?.payer ?? ''), network);
    }
  }

  // holdfast-escrow: the payment of a checkout session, locked in HoldfastEscrow through the relayer
  // (the hosted page's path: the payer names itself, signs the page's ReceiveWithAuthorization).

  /** The x402 requirements of a checkout session: its amount, receiver and token, and where the buyer names itself and reads what to sign. */
  async function checkoutRequirements(sessionId: string, origin: string): Promise<X402PaymentRequired> {
    const page = await deps.checkout.page(sessionId);
    const s = page.session;
    const network = s.blockchainNetwork;
    const token = chain.tokenAddress(network, s.currency);
    const domain = await tokenDomain(network, token);
    const base = deps.publicUrl ?? origin;
    const amount = toBaseUnits(s.amount);
    return {
      x402Version: 2,
      resource: { url: `${base}/api/v2/x402/checkout/${s.id}`, description: `Checkout session ${s.id}`, mimeType: 'application/json' },
      accepts: [
        {
          scheme: ESCROW_SCHEME,
          network: caip2Of(chain.chainId(network)),
          asset: token,
          amount: (amount ?? 0n).toString(),
          payTo: getAddress(s.toAddress),
          maxTimeoutSeconds: 300,
          extra: {
            name: domain.name,
            version: domain.version,
            escrow: chain.escrowTerms(network, s.currency).contractAddress,
            checkoutSessionId: s.id,
            payerUrl: `${base}/api/v2/checkout/sessions/${s.id}/payer`,
            pageUrl: `${base}/api/v2/checkout/sessions/${s.id}/page`,
            holdPeriodSeconds: page.terms.holdPeriodSeconds,
          },
        },
      ],
    };
  }

  interface EscrowPayment {
    sessionId: string;
    transaction: TransactionRow;
    signature: Hex;
    payer: string;
  }

  /** The `holdfast-escrow` payment against its requirements and its session, which must be the platform's, with its payer named. */
  async function parseEscrow(owner: { platformId: string }, req: X402Request, origin: string): Promise<EscrowPayment> {
    const { paymentPayload: payload, paymentRequirements: required } = req;
    const sessionId = (payload.payload as { checkoutSessionId?: unknown }).checkoutSessionId;
    const signature = (payload.payload as { signature?: unknown }).signature;
    if (req.x402Version !== 2 || payload.x402Version !== 2) throw new Invalid(X402_REASONS.version, 'Only x402 version 2 is served here');
    if (payload.accepted.scheme !== required.scheme)
      throw new Invalid(escrowReason('scheme'), "The payload's scheme is not the requirements'");
    if (typeof sessionId !== 'string' || typeof signature !== 'string' || !isHex(signature)) {
      throw new Invalid(
        X402_REASONS.payload,
        'The payload must be {checkoutSessionId, signature} (the ReceiveWithAuthorization of the session page)',
      );
    }
    if (required.extra?.checkoutSessionId !== sessionId) {
      throw new Invalid(X402_REASONS.requirements, "The payload's checkoutSessionId is not the requirements'");
    }
    let session: Awaited<ReturnType<typeof deps.checkout.get>>;
    try {
      session = await deps.checkout.get(owner, sessionId, origin);
    } catch (error) {
      if (error instanceof AppError && error.code === 'NOT_FOUND')
        throw new Invalid(X402_REASONS.requirements, 'No checkout session of this platform has this id');
      throw error;
    }
    const expected = (await checkoutRequirements(sessionId, origin)).accepts[0] as X402PaymentRequirements;
    for (const field of ['network', 'asset', 'amount', 'payTo'] as const) {
      if (
        required[field].toLowerCase() !== expected[field].toLowerCase() ||
        payload.accepted[field].toLowerCase() !== expected[field].toLowerCase()
      )
        throw new Invalid(X402_REASONS.requirements, `The ${field} is not the checkout session's`);
    }
    if (!session.transactionId || !session.fromAddress)
      throw new Invalid(X402_REASONS.transactionState, 'The payer is not named yet: POST extra.payerUrl {fromAddress} first');
    const transaction = await transactions.find(sql, session.transactionId, owner.platformId);
    if (!transaction) throw new Invalid(X402_REASONS.transactionState, 'The session has no transaction');
    return { sessionId, transaction, signature: signature as Hex, payer: getAddress(session.fromAddress) };
  }

  function asEscrowInvalid(error: unknown, payer: string): Invalid {
    if (error instanceof AppError && error.code === 'AUTHORIZATION_REFUSED') {
      const reason = String((error.details as { reason?: string } | undefined)?.reason ?? '');
      return new Invalid(escrowReason(reason), error.message, payer, reason);
    }
    if (error instanceof AppError && (error.code === 'CONFLICT' || error.code === 'INVALID_STATE_TRANSITION')) {
      return new Invalid(X402_REASONS.transactionState, error.message, payer);
    }
    return asInvalid(error, payer);
  }

  async function verifyEscrow(principal: Principal, req: X402Request, origin = ''): Promise<X402VerifyResponse> {
    let payer = '';
    try {
      const payment = await parseEscrow(principal, req, origin);
      payer = payment.payer;
      // The window the payer was asked to sign: after a failed relay it moves on (checkoutWindow).
      const window = checkoutWindow(payment.transaction.createdAt, await relayer.ofTransaction(payment.transaction.id));
      await relayer.checkLock(principal, payment.transaction.id, { kind: 'authorization', ...window, signature: payment.signature });
      return { isValid: true, payer };
    } catch (error) {
      return notValid(asEscrowInvalid(error, payer));
    }
  }

  /** Locks the session's escrow through the relayer (checkout's own authorize path); the same signature again answers the same relay. */
  async function settleEscrow(owner: { platformId: string }, req: X402Request, origin = ''): Promise<X402SettleResponse> {
    let payer = '';
    try {
      const payment = await parseEscrow(owner, req, origin);
      payer = payment.payer;
      await deps.checkout.authorize(payment.sessionId, payment.signature);
      const [relay] = await relayer.ofTransaction(payment.transaction.id);
      if (!relay) throw new Error('the relay of an authorized session is missing');
      const followed = await awaitReceipt(owner, relay);
      const row = (await transactions.find(sql, payment.transaction.id, owner.platformId)) ?? payment.transaction;
      return (await outcome(followed, row)).settlement;
    } catch (error) {
      return notSettled(asEscrowInvalid(error, payer), req.paymentRequirements.network);
    }
  }

  /**
   * GET /x402/checkout/{id}: the session as an x402 resource. Without a payment, its requirements
   * (402); with one, settled as the session's platform: 200 once locked, else 402 with the reason.
   */
  async function payCheckout(
    sessionId: string,
    paymentHeader: string | undefined,
    origin: string,
  ): Promise<{ status: 200; body: X402CheckoutPaid; settlement: X402SettleResponse } | { status: 402; body: X402PaymentRequired }> {
    const required = await checkoutRequirements(sessionId, origin);
    if (!paymentHeader) return { status: 402, body: { ...required, error: 'Payment required' } };
    let payload: X402Request['paymentPayload'];
    try {
      payload = JSON.parse(Buffer.from(paymentHeader, 'base64').toString('utf8'));
    } catch {
      return { status: 402, body: { ...required, error: X402_REASONS.payload } };
    }
    // The header is the buyer's, unauthenticated: its shape is checked as a body would be (a null or
    // a payload without `accepted` reached the settle's property reads and answered 500).
    if (!Value.Check(X402PaymentPayload, payload)) return { status: 402, body: { ...required, error: X402_REASONS.payload } };
    const platformId = await deps.sessionPlatform(sessionId);
    if (!platformId) throw notFound('Checkout session');
    const requirements = required.accepts[0] as X402PaymentRequirements;
    const settlement = await settleEscrow(
      { platformId },
      { x402Version: 2, paymentPayload: payload, paymentRequirements: requirements },
      origin,
    );
    if (!settlement.success) return { status: 402, body: { ...required, error: settlement.errorReason ?? 'settlement_failed' } };
    const s = (await deps.checkout.page(sessionId)).session;
    return {
      status: 200,
      settlement,
      body: {
        session: {
          id: s.id,
          status: s.status,
          amount: s.amount,
          currency: s.currency,
          toAddress: s.toAddress,
          fromAddress: s.fromAddress,
          transactionId: s.transactionId,
        },
        settlement,
      },
    };
  }

  /** GET /x402/settlements/{transactionId}: the settlement as it is now. */
  async function settlement(principal: Principal, transactionId: string): Promise<X402Settlement> {
    const row = await transactions.find(sql, transactionId, principal.platformId);
    if (!row) throw notFound('Transaction');
    const [relay] = await relayer.ofTransaction(row.id);
    if (!relay) throw notFound('Settlement');
    return outcome(relay, row);
  }

  return { supported, verify, settle, settlement, payCheckout };
}
export type X402Service = ReturnType<typeof createX402Service>;
