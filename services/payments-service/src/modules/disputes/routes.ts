import {
  CreateDisputeBody,
  Dispute,
  DisputeList,
  Evidence,
  ListDisputesQuery,
  PAYMENTS_V2_OPERATIONS,
  type PaymentsOperation,
  ResolveDisputeBody,
  SubmitEvidenceBody,
  Uuid,
} from '@holdfast/contracts';
import { errorResponses, type HttpApp } from '@holdfast/http-kit';
import { Type } from '@sinclair/typebox';
import { principalOf, type RouteAuth } from '../auth/index.js';
import type { DisputesService } from './service.js';

const IdParams = Type.Object({ id: Uuid });
const VERSIONS = ['v1', 'v2'] as const;
type Version = (typeof VERSIONS)[number];
const opId = (name: string, v: Version) => (v === 'v2' ? name : `${name}V1`);

/** Scopes and tier of a dispute operation, as the v2 contract lists them (v1 uses the same scopes). */
function contractOf(method: PaymentsOperation['method'], path: string): { auth: RouteAuth; tier: PaymentsOperation['tier'] } {
  const op = PAYMENTS_V2_OPERATIONS.find((o) => o.area === 'disputes' && o.method === method && o.path === `/api/v2${path}`);
  if (!op || typeof op.auth !== 'object' || !('scopes' in op.auth)) throw new Error(`no dispute operation ${method} ${path}`);
  return { auth: { scopes: [...op.auth.scopes] }, tier: op.tier };
}

/**
 * Disputes (spec "Payments API: disputes"), on v1 (API keys and tokens) and v2 (tokens only), each
 * scoped to the calling platform. Rules in docs/disputes.md.
 */
export function registerDisputeRoutes(app: HttpApp, service: DisputesService): void {
  for (const v of VERSIONS) {
    const base = `/api/${v}/disputes`;
    const deprecated = v === 'v1';

    app.get(
      base,
      {
        config: contractOf('GET', '/disputes'),
        schema: {
          tags: ['disputes'],
          summary: 'List disputes',
          description: "The platform's disputes, newest first, each with its evidence.",
          operationId: opId('listDisputes', v),
          deprecated,
          querystring: ListDisputesQuery,
          response: { 200: DisputeList },
        },
      },
      async (request) => service.list(principalOf(request), request.query),
    );

    app.post(
      base,
      {
        config: contractOf('POST', '/disputes'),
        schema: {
          tags: ['disputes'],
          summary: 'Open a dispute',
          description:
            'Opens a dispute on an escrowed or in-review transaction, at `tier_1_smart_contract`; the transaction becomes `disputed`. One dispute per transaction.',
          operationId: opId('createDispute', v),
          deprecated,
          body: CreateDisputeBody,
          response: { 201: Dispute, ...errorResponses(404, 409) },
        },
      },
      async (request, reply) => reply.code(201).send(await service.create(principalOf(request), request.body)),
    );

    app.get(
      `${base}/:id`,
      {
        config: contractOf('GET', '/disputes/{id}'),
        schema: {
          tags: ['disputes'],
          summary: 'Read a dispute',
          operationId: opId('getDispute', v),
          deprecated,
          params: IdParams,
          response: { 200: Dispute, ...errorResponses(404) },
        },
      },
      async (request) => service.get(principalOf(request), request.params.id),
    );

    app.post(
      `${base}/:id/escalate`,
      {
        config: contractOf('POST', '/disputes/{id}/escalate'),
        schema: {
          tags: ['disputes'],
          summary: 'Escalate a dispute',
          description:
            'Moves the dispute to the next tier. 400 `HIGHEST_TIER_REACHED` at `tier_3_arbitration`, `DISPUTE_RESOLVED` once resolved.',
          operationId: opId('escalateDispute', v),
          deprecated,
          params: IdParams,
          response: { 200: Dispute, ...errorResponses(404) },
        },
      },
      async (request) => service.escalate(principalOf(request), request.params.id),
    );

    app.post(
      `${base}/:id/evidence`,
      {
        config: contractOf('POST', '/disputes/{id}/evidence'),
        schema: {
          tags: ['disputes'],
          summary: 'Submit evidence',
          description: 'Adds evidence to an unresolved dispute (400 `DISPUTE_RESOLVED` once resolved).',
          operationId: opId('submitDisputeEvidence', v),
          deprecated,
          params: IdParams,
          body: SubmitEvidenceBody,
          response: { 201: Evidence, ...errorResponses(404) },
        },
      },
      async (request, reply) => reply.code(201).send(await service.submitEvidence(principalOf(request), request.params.id, request.body)),
    );

    app.post(
      `${base}/:id/resolve`,
      {
        config: contractOf('POST', '/disputes/{id}/resolve'),
        schema: {
          tags: ['disputes'],
          summary: 'Resolve a dispute',
          description:
            '`favor_receiver` completes the transaction; `favor_sender` and `partial_refund` refund it (the escrow settles the share on chain). 400 `DISPUTE_RESOLVED` when already resolved.',
          operationId: opId('resolveDispute', v),
          deprecated,
          params: IdParams,
          body: ResolveDisputeBody,
          response: { 200: Dispute, ...errorResponses(404, 409) },
        },
      },
      async (request) => service.resolve(principalOf(request), request.params.id, request.body),
    );
  }
}
