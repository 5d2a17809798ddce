import {
  CreateDisputeBody,
  Dispute,
  DisputeList,
  Evidence,
  ListDisputesQuery,
  ResolveDisputeBody,
  SubmitEvidenceBody,
} from '../disputes.js';
import { IdParams, resource } from './define.js';

// disputes (spec "Payments API: disputes"), each scoped to the calling platform; rules in docs/disputes.md

const endpoint = resource({ tags: ['disputes'] });

export const listDisputes = endpoint('GET /api/v2/disputes', {
  v1: ['/api/v1/disputes'],
  operationId: 'listDisputes',
  summary: 'List disputes',
  description: "The platform's disputes, newest first, each with its evidence.",
  tier: 'standard',
  access: { scopes: ['read:disputes'] },
  querystring: ListDisputesQuery,
  response: { 200: DisputeList },
});

export const createDispute = endpoint('POST /api/v2/disputes', {
  v1: ['/api/v1/disputes'],
  operationId: 'createDispute',
  summary: 'Open a dispute',
  description:
    'Opens a dispute on an escrowed or in-review transaction, at `tier_1_smart_contract`; the transaction becomes `disputed`. One dispute per transaction.',
  idempotent: true,
  tier: 'standard',
  access: { scopes: ['write:disputes'] },
  body: CreateDisputeBody,
  response: { 201: Dispute },
  errors: [404, 409],
});

export const getDispute = endpoint('GET /api/v2/disputes/:id', {
  v1: ['/api/v1/disputes/:id'],
  operationId: 'getDispute',
  summary: 'Read a dispute',
  tier: 'high',
  access: { scopes: ['read:disputes'] },
  params: IdParams,
  response: { 200: Dispute },
  errors: [404],
});

export const escalateDispute = endpoint('POST /api/v2/disputes/:id/escalate', {
  v1: ['/api/v1/disputes/:id/escalate'],
  operationId: 'escalateDispute',
  summary: 'Escalate a dispute',
  description: 'Moves the dispute to the next tier. 400 `HIGHEST_TIER_REACHED` at `tier_3_arbitration`, `DISPUTE_RESOLVED` once resolved.',
  idempotent: true,
  tier: 'standard',
  access: { scopes: ['write:disputes'] },
  params: IdParams,
  response: { 200: Dispute },
  errors: [404],
});

export const submitDisputeEvidence = endpoint('POST /api/v2/disputes/:id/evidence', {
  v1: ['/api/v1/disputes/:id/evidence'],
  operationId: 'submitDisputeEvidence',
  summary: 'Submit evidence',
  description: 'Adds evidence to an unresolved dispute (400 `DISPUTE_RESOLVED` once resolved).',
  idempotent: true,
  tier: 'standard',
  access: { scopes: ['submit:evidence'] },
  params: IdParams,
  body: SubmitEvidenceBody,
  response: { 201: Evidence },
  errors: [404],
});

export const resolveDispute = endpoint('POST /api/v2/disputes/:id/resolve', {
  v1: ['/api/v1/disputes/:id/resolve'],
  operationId: 'resolveDispute',
  summary: 'Resolve a dispute',
  description:
    '`favor_receiver` completes the transaction; `favor_sender` and `partial_refund` refund it (the escrow settles the share on chain). 400 `DISPUTE_RESOLVED` when already resolved.',
  idempotent: true,
  tier: 'standard',
  access: { scopes: ['write:disputes'] },
  params: IdParams,
  body: ResolveDisputeBody,
  response: { 200: Dispute },
  errors: [404, 409],
});
