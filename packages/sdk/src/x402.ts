/*
 * x402 with Holdfast (docs/x402.md). The SDK depends on none of the x402 packages: these objects
 * have the shapes their interfaces take (`FacilitatorConfig` of @x402/core, `SchemeNetworkClient`),
 * so they plug into the protocol's own middleware and clients.
 */

import type { paths as PaymentsPaths } from './generated/payments-openapi.js';

/** `B` when `B/verify`, `B/settle` and `B/supported` are all operations of the Payments document, else `never`. */
type FacilitatorBase<B extends string> = `${B}/${'verify' | 'settle' | 'supported'}` extends keyof PaymentsPaths ? B : never;
/** Holdfast's facilitator, to which @x402/core appends `/verify`, `/settle` and `/supported` (typed from the document). */
const FACILITATOR_PATH: FacilitatorBase<'/api/v2/x402'> = '/api/v2/x402';

/** The scheme of a payment locked in HoldfastEscrow (hold period, rescind, release, refund, disputes) instead of paid out. */
export const HOLDFAST_ESCROW_SCHEME = 'holdfast-escrow';

/** What @x402/core's `HTTPFacilitatorClient` takes: Holdfast's facilitator URL and the platform's bearer token for each call. */
export interface X402FacilitatorConfig {
  url: string;
  createAuthHeaders: () => Promise<{
    verify: Record<string, string>;
    settle: Record<string, string>;
    supported: Record<string, string>;
  }>;
}

/** The facilitator of a Holdfast deployment, authenticated by `token()` (a PaymentsClient's `oauth.token`). */
export function x402FacilitatorConfig(baseUrl: string, token: () => Promise<{ accessToken: string }>): X402FacilitatorConfig {
  return {
    url: `${baseUrl.replace(/\/+$/, '')}${FACILITATOR_PATH}`,
    createAuthHeaders: async () => {
      const headers = { Authorization: `Bearer ${(await token()).accessToken}` };
      return { verify: headers, settle: headers, supported: headers };
    },
  };
}

/** A wallet that signs EIP-712 typed data (a viem account does). */
export interface X402Signer {
  readonly address: string;
  signTypedData(typedData: {
    domain: Record<string, unknown>;
    types: Record<string, readonly { name: string; type: string }[]>;
    primaryType: string;
    message: Record<string, unknown>;
  }): Promise<string>;
}

interface Requirements {
  scheme: string;
  extra?: Record<string, unknown>;
}

interface PageAnswer {
  payment: {
    typedData: {
      domain: Record<string, unknown>;
      types: Record<string, { name: string; type: string }[]>;
      primaryType: string;
      message: Record<string, string>;
    } | null;
  } | null;
}

/**
 * The buyer's side of `holdfast-escrow` for @x402/fetch (`x402Client.register(network, new
 * HoldfastEscrowScheme(account))`): names the buyer as the checkout session's payer
 * (`extra.payerUrl`), reads the `ReceiveWithAuthorization` the hosted page would sign
 * (`extra.pageUrl`: the escrow's terms, the token's domain), signs it, and answers the payload
 * Holdfast settles. The buyer needs no ETH: Holdfast's relayer submits the lock.
 */
export class HoldfastEscrowScheme {
  readonly scheme = HOLDFAST_ESCROW_SCHEME;
  readonly #signer: X402Signer;
  readonly #fetch: typeof fetch;

  constructor(signer: X402Signer, options: { fetch?: typeof fetch } = {}) {
    this.#signer = signer;
    this.#fetch = options.fetch ?? fetch;
  }

  async createPaymentPayload(
    x402Version: number,
    requirements: Requirements,
  ): Promise<{ x402Version: number; payload: Record<string, unknown> }> {
    const extra = requirements.extra ?? {};
    const { checkoutSessionId, payerUrl, pageUrl } = extra;
    if (typeof checkoutSessionId !== 'string' || typeof payerUrl !== 'string' || typeof pageUrl !== 'string') {
      throw new Error('holdfast-escrow requirements name extra.checkoutSessionId, extra.payerUrl and extra.pageUrl');
    }
    const named = await this.#fetch(payerUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fromAddress: this.#signer.address }),
    });
    if (!named.ok) throw new Error(`Holdfast refused the payer (${named.status}): ${await named.text()}`);
    const page = await this.#fetch(pageUrl);
    if (!page.ok) throw new Error(`Holdfast's checkout page answered ${page.status}`);
    const typedData = ((await page.json()) as PageAnswer).payment?.typedData;
    if (!typedData) throw new Error('The checkout session has nothing to sign (paid, expired, or not lockable)');
    const { EIP712Domain: _domain, ...types } = typedData.types;
    const m = typedData.message;
    const signature = await this.#signer.signTypedData({
      domain: typedData.domain,
      types,
      primaryType: typedData.primaryType,
      message: { ...m, value: BigInt(m.value ?? '0'), validAfter: BigInt(m.validAfter ?? '0'), validBefore: BigInt(m.validBefore ?? '0') },
    });
    return { x402Version, payload: { checkoutSessionId, signature } };
  }
}

/**
 * The seller's side of `holdfast-escrow` for an x402 resource server
 * (`x402ResourceServer.register(network, new HoldfastEscrowServerScheme())`), with a price from
 * `PaymentsClient.x402.escrowPrice(…)`: each unpaid request gets a checkout session of its own, and
 * the paid request the session its payment names. The session's fields in `extra` differ per
 * request (`dynamicExtraFields`).
 */
export class HoldfastEscrowServerScheme {
  readonly scheme = HOLDFAST_ESCROW_SCHEME;
  readonly defaultAssetTransferMethod = 'eip3009';
  readonly paymentFlows = { eip3009: { supported: ['authorization'] as const, default: 'authorization' as const } };
  readonly dynamicExtraFields = ['checkoutSessionId', 'payerUrl', 'pageUrl'];

  async parsePrice(price: unknown): Promise<{ amount: string; asset: string; extra?: Record<string, unknown> }> {
    if (typeof price === 'object' && price !== null && 'amount' in price && 'asset' in price) {
      const p = price as { amount: string; asset: string; extra?: Record<string, unknown> };
      return { amount: p.amount, asset: p.asset, extra: p.extra ?? {} };
    }
    throw new Error('holdfast-escrow prices come from PaymentsClient.x402.escrowPrice (an asset amount with the session in extra)');
  }

  async enhancePaymentRequirements<R>(requirements: R): Promise<R> {
    return requirements;
  }
}

/** The checkout session a payment header names, if it is a `holdfast-escrow` payment. */
export function escrowSessionOf(paymentHeader: string | undefined): string | undefined {
  if (!paymentHeader) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(paymentHeader, 'base64').toString('utf8')) as {
      accepted?: { scheme?: string; extra?: { checkoutSessionId?: unknown } };
    };
    const id = payload.accepted?.scheme === HOLDFAST_ESCROW_SCHEME ? payload.accepted.extra?.checkoutSessionId : undefined;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
