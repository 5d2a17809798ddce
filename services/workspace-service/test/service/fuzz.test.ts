import { appendFileSync } from 'node:fs';
import fc from 'fast-check';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerCustomer } from '../support/customers.js';
import { type Credential, createChecker, type IdPool, type Operation, operationsOf, requestsFor, send } from '../support/fuzz.js';
import { buildWorld, type Harness, type Json, PASSWORD, startHarness, type World } from '../support/harness.js';
import { paymentsToken } from '../support/integrations.js';

// Property-based fuzzing of every operation of both OpenAPI documents (issue 14), through the
// real workspace-service and payments-service, with real credentials of two tenants: no 5xx
// (beyond a 502/503 the operation declares), every error in the envelope and declared, every 2xx
// valid against its declared schema, no credential echoed, no 2xx for the other tenant's ids.
// Among them, hostile requests (issue 28 item 8): JSON nested past 64 levels and free-form values
// past 8, odd and oversized headers, odd query strings, multipart bodies; each kind is sent.
//
// The seed is printed; replay a failure with FUZZ_SEED=<seed>. FUZZ_RUNS sets the requests per
// operation (the suite's bounded run: 4, about 1,400 requests; `pnpm fuzz:long`: 60, about
// 21,000). FUZZ_TRACE=<file> appends every request sent to that file.
// The suite's run uses one fixed seed, so a red ./scripts/test means a change broke something,
// never a lucky draw; exploring new seeds is the long run's job (FUZZ_SEED=random, its default).
const SUITE_SEED = 273427890;
const givenSeed = process.env.FUZZ_SEED;
const seed = givenSeed === undefined ? SUITE_SEED : givenSeed === 'random' ? Date.now() % 2 ** 31 : Number(givenSeed);
const runs = Number(process.env.FUZZ_RUNS ?? 4);
const INTERNAL_API_KEY = 'internal-key-for-the-fuzz-test-0123456789';

let h: Harness;
let world: World;
const docs = {} as Record<Operation['api'], Json>;
const secrets: string[] = [PASSWORD, INTERNAL_API_KEY];
let credentialsOf: (api: Operation['api'], scheme: string) => Credential[];
const ids: IdPool = { A: [], B: [] };

async function sandbox(workspaceId: string, token: string) {
  const res = await h.call('POST', `/api/v1/workspaces/${workspaceId}/sandbox-credentials`, { token });
  if (res.status !== 201) throw new Error(`sandbox credentials: ${res.status} ${res.text}`);
  const data = res.body.data as { apiKey: string; platformId: string; oauthClient: { clientId: string; clientSecret: string } };
  secrets.push(data.apiKey, data.oauthClient.clientSecret);
  return { ...data, accessToken: await paymentsToken(h, data.oauthClient) };
}

beforeAll(async () => {
  console.info(`fuzz seed ${seed} (replay: FUZZ_SEED=${seed}), ${runs} requests per operation`);
  h = await startHarness({ INTERNAL_API_KEY }, { peers: true });
  world = await buildWorld(h);
  const [a, b, customer] = await Promise.all([
    sandbox(world.w1.id, world.adminW1.token),
    sandbox(world.w2.id, world.adminW2.token),
    registerCustomer(h, world.w1.id),
  ]);
  // The credentials this test sends are never to appear in an answer (new ones a route mints may).
  secrets.push(world.adminW1.token, world.clientW1.token, world.adminW2.token, world.superAdmin.token, customer.token);
  secrets.push(a.accessToken, b.accessToken);
  ids.A.push(world.w1.id, world.adminW1.id, world.clientW1.id, a.platformId, customer.id, a.oauthClient.clientId);
  ids.B.push(world.w2.id, world.adminW2.id, b.platformId, b.oauthClient.clientId);
  for (const [api, url] of [
    ['payments', h.peers!.payments.url],
    ['workspace', h.url],
  ] as const) {
    docs[api] = await (await request(`${url}/openapi.json`)).body.json();
  }
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const basic = (client: { clientId: string; clientSecret: string }) => ({
    authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
  });
  const schemes: Record<Operation['api'], Record<string, Credential[]>> = {
    payments: {
      apiKey: [
        { tenant: 'A', headers: { 'x-api-key': a.apiKey } },
        { tenant: 'B', headers: { 'x-api-key': b.apiKey } },
      ],
      bearer: [
        { tenant: 'A', headers: bearer(a.accessToken) },
        { tenant: 'B', headers: bearer(b.accessToken) },
      ],
      clientBasic: [
        { tenant: 'A', headers: basic(a.oauthClient) },
        { tenant: 'B', headers: basic(b.oauthClient) },
      ],
    },
    workspace: {
      bearer: [
        { tenant: 'A', headers: bearer(world.adminW1.token) },
        { tenant: 'A', headers: bearer(world.clientW1.token) },
        { tenant: 'B', headers: bearer(world.adminW2.token) },
        { tenant: 'operator', headers: bearer(world.superAdmin.token) },
      ],
      customerBearer: [{ tenant: 'A', headers: bearer(customer.token) }],
      workspaceKey: [
        { tenant: 'A', headers: { 'x-api-key': a.apiKey } },
        { tenant: 'B', headers: { 'x-api-key': b.apiKey } },
      ],
      internalApiKey: [{ tenant: 'operator', headers: { 'x-internal-api-key': INTERNAL_API_KEY } }],
    },
  };
  credentialsOf = (api, scheme) => schemes[api][scheme] ?? [];
}, 180_000);

afterAll(async () => {
  await h?.stop();
});

describe('every operation of both OpenAPI documents, fuzzed', () => {
  it(
    'answers every generated and mutated request cleanly',
    async () => {
      const check = createChecker(docs, () => secrets);
      const bases = { payments: h.peers!.payments.url, workspace: h.url };
      const failures: string[] = [];
      let sent = 0;
      let foreign = 0;
      const statuses = new Map<number, number>();
      const hostile = new Map<string, number>();
      const operations = [...operationsOf('payments', docs.payments), ...operationsOf('workspace', docs.workspace)];
      for (const op of operations) {
        const started = Date.now();
        if (process.env.FUZZ_TRACE) appendFileSync(process.env.FUZZ_TRACE, `${op.api} ${op.method} ${op.path}\n`);
        const arbitrary = requestsFor(bases[op.api], docs[op.api], op, (scheme) => credentialsOf(op.api, scheme), ids);
        const result = await fc.check(
          fc.asyncProperty(arbitrary, async (req) => {
            sent += 1;
            if (process.env.FUZZ_TRACE) appendFileSync(process.env.FUZZ_TRACE, `  ${req.method} ${req.url.slice(0, 200)}\n`);
            const answer = await send(req);
            statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
            for (const kind of req.hostile) hostile.set(kind, (hostile.get(kind) ?? 0) + 1);
            if (req.foreignIds.length > 0) foreign += 1;
            const problems = check(op, req, answer);
            if (problems.length > 0) {
              throw new Error(
                `${req.method} ${req.url.replace(bases[op.api], '')} as ${req.tenant}: ${answer.status}\n  ${problems.join('\n  ')}`,
              );
            }
          }),
          { seed, numRuns: runs, endOnFailure: true },
        );
        if (Date.now() - started > 3000) console.info(`fuzz: ${op.api} ${op.method} ${op.path} took ${Date.now() - started} ms`);
        if (result.failed)
          failures.push(
            `${op.api} ${op.method} ${op.path}: ${String((result.errorInstance as Error | undefined)?.message ?? result.errorInstance)}`,
          );
      }
      const histogram = [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}×${n}`);
      console.info(
        `fuzz: ${operations.length} operations, ${sent} requests (${foreign} with the other tenant's ids), seed ${seed}; ${histogram.join(' ')}; hostile: ${[...hostile].map(([k, n]) => `${k}×${n}`).join(' ')}`,
      );
      // Every hostile kind was sent (the fixed seed draws each many times).
      for (const kind of ['deep-json', 'multipart', 'headers', 'query']) expect(hostile.get(kind) ?? 0, kind).toBeGreaterThan(10);
      expect(failures, `seed ${seed}: replay with FUZZ_SEED=${seed}`).toEqual([]);
    },
    Math.max(600_000, runs * 90_000),
  );
});
