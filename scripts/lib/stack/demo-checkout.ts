// The demo checkout ./scripts/start prints (docs/try-a-payment.md "In a browser"): a platform made
// with the stack's bootstrap admin key, and one checkout session on the local chain for anvil's dev
// account #5, open for 24 hours. A payer opens the link in a browser whose wallet is on the local
// chain with MockUSDC (anyone may mint it), signs once, and the relayer pays the gas.
import { randomUUID } from 'node:crypto';
import { api, createPlatform, expectStatus, SMOKE_RECEIVER } from './smoke-payment.ts';

export async function createDemoCheckout(options: {
  /** The Payments API's base URL. */
  base: string;
  adminKey: string;
  network: string;
}): Promise<{ url: string; sessionId: string; platformId: string }> {
  const { base } = options;
  const platform = await createPlatform(base, options.adminKey, 'Demo shop');
  const session = expectStatus(
    'POST /api/v2/checkout/sessions (the demo checkout)',
    await api(
      base,
      'POST',
      '/api/v2/checkout/sessions',
      { authorization: `Bearer ${platform.accessToken}`, 'idempotency-key': `demo-${randomUUID()}` },
      {
        amount: '25',
        currency: 'USDC',
        blockchainNetwork: options.network,
        toAddress: SMOKE_RECEIVER,
        // The platform's pages in a real shop; here the API reference, which is always there.
        successUrl: `${base}/docs#paid`,
        cancelUrl: `${base}/docs#cancelled`,
        expiresInSeconds: 24 * 60 * 60,
        metadata: { demo: true },
      },
    ),
    201,
  );
  return { url: session.url as string, sessionId: session.id as string, platformId: platform.platformId };
}
