import { Quote, QuoteBody } from '../transactions.js';
import { resource } from './define.js';

// quotes: what a transaction would cost, before it is created

const endpoint = resource({ tags: ['transactions'] });

export const quoteTransaction = endpoint('POST /api/v2/transactions/quote', {
  v1: ['/api/v1/transactions/quote'],
  operationId: 'quoteTransaction',
  summary: 'Fee quote',
  description:
    "The fee of an amount under `billingConfig` (or the platform's `settings.billing`; none = no fee). Valid until `expiresAt`; pass `quoteId` to one create with the same amount and currency.",
  tier: 'standard',
  access: { scopes: ['write:transactions'] },
  body: QuoteBody,
  response: { 201: Quote },
});
