import {
  RefundBody,
  ReleaseEarlyAttestBody,
  RescindBody,
  SubmitEscrowHashBody,
  SubmitHashBody,
  TransactionOperationResult,
  Uuid,
} from '@holdfast/contracts';
import { errorResponses, type HttpApp } from '@holdfast/http-kit';
import { Type } from '@sinclair/typebox';
import { type ApiVersion, operationId } from '../../http/versions.js';
import type { RouteAuth } from '../auth/index.js';
import { principalOf } from '../auth/plugin.js';
import type { SettlementService } from './service.js';

const params = Type.Object({ id: Uuid });

/** The scopes of each operation: v2 per PAYMENTS_V2_OPERATIONS; v1 its v1 scope, or a v2 token's. */
const AUTH: Record<string, Record<ApiVersion, RouteAuth>> = {
  hash: { v1: { scopes: ['write:transactions'] }, v2: { scopes: ['write:transactions'] } },
  move: { v1: { anyScope: ['write:transactions', 'move:transactions'] }, v2: { scopes: ['move:transactions'] } },
  rescind: { v1: { anyScope: ['rescind:transactions', 'reverse:transactions'] }, v2: { scopes: ['reverse:transactions'] } },
  refund: { v1: { anyScope: ['cancel:transactions', 'reverse:transactions'] }, v2: { scopes: ['reverse:transactions'] } },
};

const DESIGN = 'Design: docs/settlement.md.';

/** Rescind and refund may be sent without a body (all their fields are optional): validate it as `{}`. */
async function emptyBodyAsObject(request: { body: unknown }): Promise<void> {
  request.body ??= {};
}

/** The on-chain operations of a transaction (spec "named only"), on v1 and v2 with the v2 renames. */
export function settlementRoutes(service: SettlementService) {
  return async (app: HttpApp) => {
    const paths: Record<ApiVersion, Record<string, string[]>> = {
      v2: {
        hash: ['/api/v2/transactions/:id/hash'],
        escrowHash: ['/api/v2/transactions/:id/escrow-hash'],
        release: ['/api/v2/transactions/:id/release/attest'],
        early: ['/api/v2/transactions/:id/release-early/attest'],
        rescind: ['/api/v2/transactions/:id/rescind'],
        refund: ['/api/v2/transactions/:id/refund'],
      },
      v1: {
        hash: ['/api/v1/transactions/:id/submit-hash'],
        escrowHash: ['/api/v1/transactions/:id/submit-escrow-hash'],
        release: ['/api/v1/transactions/:id/authorize-release'],
        early: ['/api/v1/transactions/:id/release-early/authorize', '/api/v1/transactions/:id/release-early/attest'],
        rescind: ['/api/v1/transactions/:id/rescind'],
        refund: ['/api/v1/transactions/:id/refund'],
      },
    };

    for (const v of ['v1', 'v2'] as const) {
      const common = { tags: ['transactions'], deprecated: v === 'v1', params };

      for (const path of paths[v].hash ?? []) {
        app.post(
          path,
          {
            config: { tier: 'standard', access: AUTH.hash?.[v] },
            schema: {
              ...common,
              summary: 'Submit the on-chain hash (raw)',
              description: `A raw transaction's ERC-20 transfer: its receipt is read on chain; a matching transfer completes the transaction, a reverted one fails it. 409 CHAIN_TRANSACTION_PENDING while it has no receipt or fewer confirmations than CHAIN_CONFIRMATIONS of its network (details.confirmations, details.required): submit it again later. ${DESIGN}`,
              operationId: operationId('submitTransactionHash', v),
              body: SubmitHashBody,
              response: { 200: TransactionOperationResult, ...errorResponses(404, 409, 503) },
            },
          },
          async (request) => service.submitHash(principalOf(request), request.params.id, request.body),
        );
      }

      for (const path of paths[v].escrowHash ?? []) {
        app.post(
          path,
          {
            config: { tier: 'standard', access: AUTH.hash?.[v] },
            schema: {
              ...common,
              summary: 'Submit the escrow hash',
              description: `The createEscrow (or createBatch) transaction: its EscrowCreated log for this transaction id must match the transaction; the transaction is escrowed once the receipt has the network's CHAIN_CONFIRMATIONS (before: 409 CHAIN_TRANSACTION_PENDING, submit it again later). ${DESIGN}`,
              operationId: operationId('submitEscrowHash', v),
              body: SubmitEscrowHashBody,
              response: { 200: TransactionOperationResult, ...errorResponses(404, 409, 503) },
            },
          },
          async (request) => service.submitEscrowHash(principalOf(request), request.params.id, request.body),
        );
      }

      for (const path of paths[v].release ?? []) {
        app.post(
          path,
          {
            config: { tier: 'standard', access: AUTH.move?.[v] },
            schema: {
              ...common,
              summary: 'Attest a release',
              description: `escrowed -> in_review; Holdfast's attester releases the escrow on chain once its hold has ended, and the chain event completes the transaction. Idempotent: the same platform's attest again, once in_review or completed, answers 200 with the transaction as it is (nothing is done twice); any other status is 409 INVALID_STATE_TRANSITION. ${DESIGN}`,
              operationId: operationId('attestRelease', v),
              response: { 200: TransactionOperationResult, ...errorResponses(404, 409, 503) },
            },
          },
          async (request) => service.attestRelease(principalOf(request), request.params.id),
        );
      }

      (paths[v].early ?? []).forEach((path, i) => {
        app.post(
          path,
          {
            config: { tier: 'standard', access: AUTH.move?.[v] },
            schema: {
              ...common,
              summary: 'Attest an early release',
              description: `Records a party's consent to an early release (verified on chain when its attestEarlyRelease hash is given, once the receipt has the network's CHAIN_CONFIRMATIONS; before: 409 CHAIN_TRANSACTION_PENDING; the same party's hash again: 200). The escrow pays the receiver when both consents are on chain. ${DESIGN}`,
              operationId: operationId(i === 0 ? 'attestEarlyRelease' : 'attestEarlyReleaseAlias', v),
              body: ReleaseEarlyAttestBody,
              response: { 200: TransactionOperationResult, ...errorResponses(404, 409, 503) },
            },
          },
          async (request) => service.attestEarlyRelease(principalOf(request), request.params.id, request.body),
        );
      });

      for (const path of paths[v].rescind ?? []) {
        app.post(
          path,
          {
            config: { tier: 'standard', access: AUTH.rescind?.[v] },
            preValidation: emptyBodyAsObject,
            schema: {
              ...common,
              summary: 'Rescind within the hold period',
              description: `With the sender's rescind txHash: verified on chain, rescinded once its receipt has the network's CHAIN_CONFIRMATIONS (200; before: 409 CHAIN_TRANSACTION_PENDING). The hash that already rescinded it again: 200 with the transaction (idempotent). Without: the request is recorded (202) and the transaction is rescinded when the chain shows the sender's rescind. 409 HOLD_PERIOD_ENDED after the deadline. ${DESIGN}`,
              operationId: operationId('rescindTransaction', v),
              body: RescindBody,
              response: { 200: TransactionOperationResult, 202: TransactionOperationResult, ...errorResponses(404, 409, 503) },
            },
          },
          async (request, reply) => {
            const out = await service.rescind(principalOf(request), request.params.id, request.body);
            return reply.code(out.status).send(out.body);
          },
        );
      }

      for (const path of paths[v].refund ?? []) {
        app.post(
          path,
          {
            config: { tier: 'standard', access: AUTH.refund?.[v] },
            preValidation: emptyBodyAsObject,
            schema: {
              ...common,
              summary: 'Refund',
              description: `escrowed, in_review or disputed -> refunded (transaction.refunded); Holdfast's attester returns the funds on chain. Idempotent: the same platform's refund again, once refunded (on chain or still being returned), answers 200 with the transaction as it is (nothing is done twice); any other status, or a refund made by a dispute resolution, is 409 INVALID_STATE_TRANSITION. ${DESIGN}`,
              operationId: operationId('refundTransaction', v),
              body: RefundBody,
              response: { 200: TransactionOperationResult, ...errorResponses(404, 409, 503) },
            },
          },
          async (request) => service.refund(principalOf(request), request.params.id, request.body),
        );
      }
    }
  };
}
