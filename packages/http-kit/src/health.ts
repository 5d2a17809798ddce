import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';

export interface ReadinessCheck {
  /** `postgres`, `nats`, `chain:base-sepolia`... named in the 503 answer. */
  name: string;
  check: (signal: AbortSignal) => Promise<void>;
}

const CHECK_TIMEOUT_MS = 2000;

async function runCheck({ name, check }: ReadinessCheck): Promise<{ name: string; ok: boolean; error?: string }> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`));
    }, CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([check(controller.signal), timeout]);
    return { name, ok: true };
  } catch (error) {
    return { name, ok: false, error: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

const Health = Type.Object({ status: Type.Literal('ok') });
const Readiness = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('unavailable')]),
  checks: Type.Record(Type.String(), Type.String(), { description: 'dependency -> "ok" or why it failed' }),
  failing: Type.Optional(Type.Array(Type.String())),
});

export type ReadinessBody = Static<typeof Readiness>;

/** Runs every check (each within CHECK_TIMEOUT_MS): the body `/health/ready` answers, ready or not. */
export async function probeReadiness(checks: ReadinessCheck[]): Promise<ReadinessBody> {
  const results = await Promise.all(checks.map(runCheck));
  const failing = results.filter((r) => !r.ok);
  return {
    status: failing.length === 0 ? 'ready' : 'unavailable',
    checks: Object.fromEntries(results.map((r) => [r.name, r.ok ? 'ok' : (r.error ?? 'failed')])),
    ...(failing.length > 0 ? { failing: failing.map((r) => r.name) } : {}),
  };
}

/**
 * `probeReadiness` of `checks`, shared by every call that arrives while one runs: `/health/ready`
 * needs no credential and is not rate limited (a load balancer polls it), so without this a burst
 * of anonymous requests became as many PostgreSQL, NATS and RPC round trips. A call after the
 * probe ended starts a new one, so a dependency's change shows at the next call.
 */
export function singleFlightReadiness(checks: ReadinessCheck[]): () => Promise<ReadinessBody> {
  let running: Promise<ReadinessBody> | undefined;
  return () => {
    running ??= probeReadiness(checks).finally(() => {
      running = undefined;
    });
    return running;
  };
}

export function registerHealth(app: FastifyInstance, checks: ReadinessCheck[]): void {
  const readiness = singleFlightReadiness(checks);
  app.get(
    '/health',
    {
      config: { unlimited: true },
      schema: {
        tags: ['health'],
        summary: 'Liveness: 200 while the process runs',
        description: 'For the orchestrator: 200 as long as the process serves HTTP; checks no dependency. No credential.',
        operationId: 'health',
        security: [],
        response: { 200: Health },
      },
    },
    async () => ({ status: 'ok' as const }),
  );
  app.get(
    '/health/ready',
    {
      config: { unlimited: true },
      schema: {
        tags: ['health'],
        summary: 'Readiness: 200 when every dependency answers, else 503 naming the failing ones',
        description:
          'For the load balancer: PostgreSQL, NATS and the chain RPC the process uses, really checked. No credential. ' +
          'Requests that arrive while a check runs share its answer.',
        operationId: 'readiness',
        security: [],
        response: { 200: Readiness, 503: Readiness },
      },
    },
    async (request, reply) => {
      const body = await readiness();
      if (body.failing) request.log.warn({ failing: body.failing, checks: body.checks }, 'not ready');
      return reply.code(body.failing ? 503 : 200).send(body);
    },
  );
}

/** Readiness of an EVM JSON-RPC endpoint: `eth_chainId` answers (and matches, when given). */
export function chainRpcCheck(network: string, url: string, expectedChainId?: number): ReadinessCheck {
  return {
    name: `chain:${network}`,
    check: async (signal) => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
        signal,
      });
      if (!res.ok) throw new Error(`RPC answered HTTP ${res.status}`);
      const body = (await res.json()) as { result?: string; error?: { message: string } };
      if (!body.result) throw new Error(body.error?.message ?? 'no chain id');
      const chainId = Number.parseInt(body.result, 16);
      if (expectedChainId !== undefined && chainId !== expectedChainId) throw new Error(`chain id ${chainId}, expected ${expectedChainId}`);
    },
  };
}
