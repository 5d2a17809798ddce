import { EscrowAuthorizationBody, RelayResult } from '../relayer.js';
import { IdParams, resource } from './define.js';

// relayer: a transaction's escrow funded with one signature, submitted by Holdfast's relayer

const RELAYER_DESIGN =
  "The payer signs, Holdfast's relayer submits the escrow's creation from a key of its own and pays the gas (docs/checkout.md).";

const endpoint = resource({ tags: ['transactions'] });

export const relayEscrowAuthorization = endpoint('POST /api/v2/transactions/:id/escrow-authorization', {
  operationId: 'relayEscrowAuthorization',
  summary: 'Fund the escrow with one signature (relayed)',
  description: `For a pending platform transaction: the payer's EIP-3009 authorization (\`authorization\`: ReceiveWithAuthorization in the token's domain, to = the escrow, nonce = the escrow's authorizationNonce of the transaction's terms) or EIP-2612 permit with the escrow's EscrowAuthorization (\`permit\`), over exactly the terms of the transaction's create answer (\`escrow\`). Checked before any gas is spent: signer, domain, terms, the validity window (valid for at least RELAYER_VALIDITY_MARGIN more), the nonce (unused on chain and here), the payer's balance, the platform's daily gas budget and a simulation; a refusal is 422 AUTHORIZATION_REFUSED with \`details.reason\` (or 429 RELAYER_BUDGET_EXHAUSTED) and nothing is sent. 202: the relayer's transaction is signed, stored and sent; the transaction moves to escrowed when it is mined. The same body again answers the same relay (200), never a second on-chain transaction; another body while a relay is live is 409. A token with neither standard: use approve + createEscrow and escrow-hash. ${RELAYER_DESIGN}`,
  tier: 'standard',
  access: { scopes: ['move:transactions'] },
  params: IdParams,
  body: EscrowAuthorizationBody,
  response: { 202: RelayResult, 200: RelayResult },
  errors: [404, 409, 422, 429, 503],
});

export const getEscrowAuthorization = endpoint('GET /api/v2/transactions/:id/escrow-authorization', {
  operationId: 'getEscrowAuthorization',
  summary: 'The relay of a transaction',
  description: `The relayed funding of the transaction (its status, current on-chain hash, relayer) and the transaction; 404 when none was sent. ${RELAYER_DESIGN}`,
  tier: 'standard',
  access: { scopes: ['read:transactions'] },
  params: IdParams,
  response: { 200: RelayResult },
  errors: [404],
});
