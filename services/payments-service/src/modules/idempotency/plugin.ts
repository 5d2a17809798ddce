import { AppError } from '@holdfast/contracts';
import type { Queryable } from '@holdfast/db';
import type { HttpApp } from '@holdfast/http-kit';
import type { Logger } from '@holdfast/logging';
import { sha256 } from '@holdfast/secrets';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { principalOf } from '../auth/index.js';
import { canonical } from '../transactions/index.js';
import type { IdempotencyRepository } from './repository.js';

interface Held {
  platformId: string;
  key: string;
  token: string;
}

/**
 * Stores the operation's answer in its own database transaction (call it last in that
 * transaction, with the value the route replies). Without it a process that dies between the
 * commit and the reply's storing leaves the key running, and the retry after the lease runs the
 * operation again: for evidence and escalation, a second effect.
 */
export type AnswerInTransaction = (tx: Queryable, status: number, value: unknown) => Promise<void>;

export interface Idempotency {
  /** The request's hook for `AnswerInTransaction`; undefined when it came without a key. */
  inTransaction(request: FastifyRequest): AnswerInTransaction | undefined;
}

/**
 * The Idempotency-Key of the routes the catalogue marks `idempotent` (docs/idempotency.md). After
 * authentication and validation, a request with a key claims it: the first runs, a retry while it
 * runs is 409 IDEMPOTENCY_KEY_IN_USE, a retry after its success gets the stored answer with
 * `Idempotent-Replayed: true`, the key with other parameters (or of another operation) is 422
 * IDEMPOTENCY_KEY_REUSED. Only a 2xx is kept: a refusal (409 CHAIN_TRANSACTION_PENDING, a 503…)
 * frees the key, so the retry that the refusal asks for runs again. A process that dies holding a
 * key loses it after the lease and a retry runs the operation again: the state machines make that
 * harmless for release, rescind, refund and resolution; evidence and escalation store their answer
 * in their own transaction (`inTransaction`), so a retry after their commit is answered, never run.
 */
export function registerIdempotency(app: HttpApp, deps: { repository: IdempotencyRepository; logger: Logger }): Idempotency {
  const { repository } = deps;
  const held = new WeakMap<FastifyRequest, Held>();
  const log = deps.logger.child({ component: 'idempotency' });

  app.addHook('onRoute', (route) => {
    if (!(route.config as { idempotent?: boolean } | undefined)?.idempotent) return;
    const operation = (route.schema as { operationId?: string } | undefined)?.operationId ?? `${route.method} ${route.url}`;

    const claim = async (request: FastifyRequest, reply: FastifyReply) => {
      const key = request.headers['idempotency-key'];
      if (typeof key !== 'string') return;
      const { platformId } = principalOf(request);
      const fingerprint = sha256(canonical({ params: request.params ?? null, body: request.body ?? null }));
      const claimed = { platformId, key, operation, fingerprint };
      // Twice: a key released between our claim and our read is free again.
      for (let attempt = 0; attempt < 2; attempt++) {
        const token = await repository.claim(claimed);
        if (token) {
          held.set(request, { platformId, key, token });
          return;
        }
        const row = await repository.find(platformId, key);
        if (!row) continue;
        if (row.operation !== operation || row.fingerprint !== fingerprint) {
          throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This idempotency key was already used with another operation or other parameters');
        }
        if (row.state === 'done' && row.responseStatus !== null && row.responseBody !== null) {
          // Through the route's serializer: an answer stored in the operation's transaction is the
          // service's value, not yet the reply the schema makes of it.
          return reply.code(row.responseStatus).header('idempotent-replayed', 'true').send(JSON.parse(row.responseBody));
        }
        break;
      }
      throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this idempotency key is still being processed; retry shortly');
    };

    const keep = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      const mine = held.get(request);
      if (!mine) return payload;
      held.delete(request);
      try {
        if (reply.statusCode >= 200 && reply.statusCode < 300 && typeof payload === 'string') {
          await repository.complete({ ...mine, status: reply.statusCode, body: payload });
        } else {
          await repository.release(mine);
        }
      } catch (error) {
        // The answer stands; the key is taken over after its lease (see above).
        log.warn({ err: error, operation }, 'could not store the idempotent answer');
      }
      return payload;
    };

    route.preHandler = [...[route.preHandler ?? []].flat(), claim] as typeof route.preHandler;
    route.onSend = [...[route.onSend ?? []].flat(), keep] as typeof route.onSend;
  });

  return {
    inTransaction(request) {
      const mine = held.get(request);
      if (!mine) return undefined;
      return async (tx, status, value) => {
        if (!(await repository.answer(tx, { ...mine, status, body: JSON.stringify(value) }))) {
          throw new AppError(
            'IDEMPOTENCY_KEY_IN_USE',
            'This request outlived its idempotency lease and a retry took the key over; retry shortly',
          );
        }
      };
    },
  };
}
