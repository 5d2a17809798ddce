import { randomBytes } from 'node:crypto';
import { transferWithAuthorizationTypedData } from '@holdfast/escrow';
import { HoldfastEscrowServerScheme, type PaymentsClient, x402FacilitatorConfig } from '@holdfast/sdk';
import { serve } from '@hono/node-server';
import { HTTPFacilitatorClient } from '@x402/core/server';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { ExactEvmScheme as ExactEvmClient } from '@x402/evm/exact/client';
import { ExactEvmScheme as ExactEvmServer } from '@x402/evm/exact/server';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { paymentMiddleware, x402ResourceServer } from '@x402/hono';
import { Hono } from 'hono';
import { type Address, type Hex, type LocalAccount, toHex } from 'viem';
import type { ChainWorld } from './chain.js';
import { bearer, call } from './harness.js';

// The x402 protocol's own libraries as Holdfast's peers (docs/x402.md): a seller's Hono server
// behind @x402/hono configured with Holdfast's facilitator URL and the platform's token, and a
// buyer paying through @x402/fetch with a local account.

export const caip2Of = (world: ChainWorld) => `eip155:${world.anvil.chainId}` as const;
/** MockUSDC's EIP-712 domain (Circle's USDC on Base Sepolia). */
export const USDC_DOMAIN = { name: 'USDC', version: '2' } as const;
export const PRICE = 10_000n;

export const facilitatorUrl = (paymentsUrl: string) => `${paymentsUrl}/api/v2/x402`;

/**
 * The protocol's facilitator client, configured by the SDK's `x402FacilitatorConfig` (what
 * `PaymentsClient.x402.facilitator()` answers) with the platform's bearer token; none: no credential.
 */
export function facilitatorFor(paymentsUrl: string, token: string | null) {
  if (token) return new HTTPFacilitatorClient(x402FacilitatorConfig(paymentsUrl, async () => ({ accessToken: token })));
  return new HTTPFacilitatorClient({ url: facilitatorUrl(paymentsUrl) });
}

/** What the seller asks for one request: PRICE base units of MockUSDC to `payTo`. */
export function requirementsFor(world: ChainWorld, payTo: Address, overrides: Partial<PaymentRequirements> = {}): PaymentRequirements {
  return {
    scheme: 'exact',
    network: caip2Of(world),
    asset: world.usdc,
    amount: PRICE.toString(),
    payTo,
    maxTimeoutSeconds: 300,
    extra: { ...USDC_DOMAIN },
    ...overrides,
  };
}

/** The buyer's signed payment for `requirements`, made by @x402/evm's own `exact` client. */
export async function paymentFor(buyer: LocalAccount, requirements: PaymentRequirements): Promise<PaymentPayload> {
  const made = await new ExactEvmClient(buyer).createPaymentPayload(2, requirements);
  return { x402Version: 2, accepted: requirements, payload: made.payload, resource: { url: 'http://seller.test/weather' } };
}

/** A seller: GET /weather costs PRICE, paid to `payTo` through Holdfast's facilitator. */
export async function startSeller(world: ChainWorld, paymentsUrl: string, token: string, payTo: Address) {
  const server = new x402ResourceServer(facilitatorFor(paymentsUrl, token)).register(caip2Of(world), new ExactEvmServer());
  const app = new Hono();
  app.use(
    paymentMiddleware(
      {
        'GET /weather': {
          accepts: {
            scheme: 'exact',
            network: caip2Of(world),
            payTo,
            price: { amount: PRICE.toString(), asset: world.usdc, extra: { ...USDC_DOMAIN } },
            maxTimeoutSeconds: 300,
          },
          description: 'The weather',
        },
      },
      server,
    ),
  );
  app.get('/weather', (c) => c.json({ weather: 'sunny' }));
  const { url, listening } = await new Promise<{ url: string; listening: ReturnType<typeof serve> }>((resolve) => {
    const listening = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
      resolve({ url: `http://127.0.0.1:${info.port}`, listening }),
    );
  });
  return { url, stop: () => new Promise<void>((resolve) => listening.close(() => resolve())) };
}

/** A seller whose GET /vault is paid into escrow (holdfast-escrow): a checkout session per request, through the SDK. */
export async function startEscrowSeller(world: ChainWorld, client: PaymentsClient, payTo: Address) {
  const server = new x402ResourceServer(new HTTPFacilitatorClient(client.x402.facilitator())).register(
    caip2Of(world),
    new HoldfastEscrowServerScheme(),
  );
  const app = new Hono();
  const price = client.x402.escrowPrice({
    amount: '0.5',
    toAddress: payTo,
    successUrl: 'https://seller.example/thanks',
    cancelUrl: 'https://seller.example/cancel',
  });
  app.use(
    paymentMiddleware(
      { 'GET /vault': { accepts: { scheme: 'holdfast-escrow', network: caip2Of(world), payTo, price, maxTimeoutSeconds: 300 } } },
      server,
    ),
  );
  app.get('/vault', (c) => c.json({ vault: 'open' }));
  const { url, listening } = await new Promise<{ url: string; listening: ReturnType<typeof serve> }>((resolve) => {
    const listening = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
      resolve({ url: `http://127.0.0.1:${info.port}`, listening }),
    );
  });
  return { url, stop: () => new Promise<void>((resolve) => listening.close(() => resolve())) };
}

/** A buyer's fetch that pays 402 answers with `buyer`'s MockUSDC (no ETH needed: the relayer pays the gas). */
export function buyerFetch(world: ChainWorld, buyer: LocalAccount) {
  // MockUSDC is not one of the library's default assets: the buyer allows it, capped at the price.
  const client = x402Client.fromConfig({
    schemes: [{ network: caip2Of(world), client: new ExactEvmClient(buyer) }],
    spendControls: { allowedAssets: [{ network: caip2Of(world), asset: world.usdc, maxAmountPerPayment: PRICE.toString() }] },
  });
  return wrapFetchWithPayment(fetch, client);
}

/** A payment signed by hand (`signer` may differ from `from`: a forgery), for windows and fields the library would not make. */
export async function handSigned(
  world: ChainWorld,
  signer: LocalAccount,
  requirements: PaymentRequirements,
  authorization: Partial<{ from: Address; to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex }> = {},
): Promise<PaymentPayload> {
  const now = BigInt(Math.floor(Date.now() / 1000));
  const message = {
    from: signer.address,
    to: requirements.payTo as Address,
    value: BigInt(requirements.amount),
    validAfter: 0n,
    validBefore: now + 300n,
    nonce: toHex(randomBytes(32)),
    ...authorization,
  };
  const signature = await signer.signTypedData(
    transferWithAuthorizationTypedData({
      tokenDomain: { ...USDC_DOMAIN, chainId: world.anvil.chainId, verifyingContract: world.usdc },
      authorization: message,
    }),
  );
  const wire = Object.fromEntries(Object.entries(message).map(([k, v]) => [k, typeof v === 'bigint' ? v.toString() : v]));
  return { x402Version: 2, accepted: requirements, payload: { authorization: wire, signature } };
}

/** The raw facilitator call (status and body as answered). */
export const facilitatorCall = (paymentsUrl: string, op: 'verify' | 'settle', token: string | null, body: unknown) =>
  call(paymentsUrl, 'POST', `/api/v2/x402/${op}`, { headers: token ? bearer(token) : {}, body });

export const x402Body = (payment: PaymentPayload, requirements: PaymentRequirements) => ({
  x402Version: 2,
  paymentPayload: payment,
  paymentRequirements: requirements,
});
