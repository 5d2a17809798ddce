import {
  CreateDisputeBody,
  Dispute,
  DisputeList,
  Evidence,
  ListDisputesQuery,
  ResolveDisputeBody,
  SubmitEvidenceBody,
  Uuid,
} from '@holdfast/contracts';
import { errorResponses, type HttpApp } from '@holdfast/http-kit';
import { Type } from '@sinclair/typebox';
import { API_VERSIONS, operationId, v2Contract } from '../../http/versions.js';
import { principalOf } from '../auth/index.js';
import type { DisputesService } from './service.js';

const IdParams = Type.Object({ id: Uuid });

/**
 * Disputes (spec "Payments API: disputes"), on v1 (API keys and tokens) and v2 (tokens only), each
 * scoped to the calling platform. Rules in docs/disputes.md.
 */
export function disputeRoutes(service: DisputesService) {
  return async (app: HttpApp) => {
    for (const v of API_VERSIONS) {
      const base = `/api/${v}/disputes`;
      const deprecated = v === 'v1';

      app.get(
        base,
        {
          config: v2Contract('GET', '/disputes'),
          schema: {
            tags: ['disputes'],
            summary: 'List disputes',
            description: "The platform's disputes, newest first, each with its evidence.",
            operationId: operationId('listDisputes', v),
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
          config: v2Contract('POST', '/disputes'),
          schema: {
            tags: ['disputes'],
            summary: 'Open a dispute',
            description:
              'Opens a dispute on an escrowed or in-review transaction, at `tier_1_smart_contract`; the transaction becomes `disputed`. One dispute per transaction.',
            operationId: operationId('createDispute', v),
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
          config: v2Contract('GET', '/disputes/{id}'),
          schema: {
            tags: ['disputes'],
            summary: 'Read a dispute',
            operationId: operationId('getDispute', v),
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
          config: v2Contract('POST', '/disputes/{id}/escalate'),
          schema: {
            tags: ['disputes'],
            summary: 'Escalate a dispute',
            description:
              'Moves the dispute to the next tier. 400 `HIGHEST_TIER_REACHED` at `tier_3_arbitration`, `DISPUTE_RESOLVED` once resolved.',
            operationId: operationId('escalateDispute', v),
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
          config: v2Contract('POST', '/disputes/{id}/evidence'),
          schema: {
            tags: ['disputes'],
            summary: 'Submit evidence',
            description: 'Adds evidence to an unresolved dispute (400 `DISPUTE_RESOLVED` once resolved).',
            operationId: operationId('submitDisputeEvidence', v),
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
          config: v2Contract('POST', '/disputes/{id}/resolve'),
          schema: {
            tags: ['disputes'],
            summary: 'Resolve a dispute',
            description:
              '`favor_receiver` completes the transaction; `favor_sender` and `partial_refund` refund it (the escrow settles the share on chain). 400 `DISPUTE_RESOLVED` when already resolved.',
            operationId: operationId('resolveDispute', v),
            deprecated,
            params: IdParams,
            body: ResolveDisputeBody,
            response: { 200: Dispute, ...errorResponses(404, 409) },
          },
        },
        async (request) => service.resolve(principalOf(request), request.params.id, request.body),
      );
    }
  };
}
