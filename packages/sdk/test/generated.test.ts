import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fileFixture } from '@holdfast/test-fixtures';
import { describe, expect, it } from 'vitest';
import { NotFoundError, PaymentsClient, type PaymentsPaths, WorkspaceClient } from '../src/index.js';
import { address, startStack } from './stack.js';

// The SDK's OpenAPI types are generated from the committed documents (scripts/generate-types.mjs,
// ADR 59): a stale file fails here with the command that fixes it. `request` reaches every
// operation of both documents, typed from them, over the SDK's transport, against the services
// running as processes.

const script = join(dirname(fileURLToPath(import.meta.url)), '..', 'scripts', 'generate-types.mjs');
const stack = fileFixture(() => startStack());

describe('the generated OpenAPI types', () => {
  it('are what docs/api/openapi/*.json give (regenerate: node packages/sdk/scripts/generate-types.mjs)', async () => {
    const { GENERATED, generate } = (await import(script)) as {
      GENERATED: { api: string; source: string; target: string }[];
      generate: (source: string) => Promise<string>;
    };
    expect(GENERATED.map((g) => g.api)).toEqual(['payments', 'workspace']);
    for (const { source, target } of GENERATED) {
      expect(
        readFileSync(target, 'utf8') === (await generate(source)),
        `${target} is stale: run node packages/sdk/scripts/generate-types.mjs`,
      ).toBe(true);
    }
  });

  it('name every operation of both documents', () => {
    const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
    for (const api of ['payments', 'workspace']) {
      const doc = JSON.parse(readFileSync(join(root, 'docs', 'api', 'openapi', `${api}.json`), 'utf8')) as {
        paths: Record<string, Record<string, { operationId: string }>>;
      };
      const generated = readFileSync(join(root, 'packages', 'sdk', 'src', 'generated', `${api}-openapi.ts`), 'utf8');
      for (const [path, ops] of Object.entries(doc.paths)) {
        expect(generated, path).toContain(`  ${JSON.stringify(path)}: {`);
        for (const op of Object.values(ops)) expect(generated, op.operationId).toContain(`operations[${JSON.stringify(op.operationId)}]`);
      }
    }
  });
});

describe('request: any operation, typed from the document', () => {
  it('payments: a create, a read with path parameters, a query, and errors as the named methods give them', async () => {
    const client = new PaymentsClient({
      baseUrl: stack.paymentsUrl,
      clientId: stack.tenant.sandbox.clientId,
      clientSecret: stack.tenant.sandbox.clientSecret,
    });
    const created = await client.request('post', '/api/v2/transactions', {
      body: { fromAddress: address(), toAddress: address(), amount: 3, orchestrationType: 'raw' },
      idempotencyKey: `generated-${Date.now()}`,
    });
    expect(created).toMatchObject({ status: 'pending', amount: '3' });
    const id = (created as { id: string }).id;
    const read = await client.request('get', '/api/v2/transactions/{id}', { params: { id } });
    expect(read).toMatchObject({ id, status: 'pending' });
    // The same row through the named method.
    expect((await client.transactions.get(id)).id).toBe(id);
    const page = await client.request('get', '/api/v2/transactions', { query: { status: 'pending', page: 1, limit: 1 } });
    expect((page as { data: unknown[] }).data).toHaveLength(1);
    const stats = await client.request('get', '/api/v2/transactions/stats');
    expect(stats).toHaveProperty('pending.count', 1);
    const missing = await client
      .request('get', '/api/v2/disputes/{id}', { params: { id: '0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b7a' } })
      .catch((e) => e);
    expect(missing).toBeInstanceOf(NotFoundError);

    // Typed from the document: these do not compile.
    // @ts-expect-error an unknown path
    await client.request('get', '/api/v2/nothing').catch(() => undefined);
    // @ts-expect-error the path's id is required
    await client.request('get', '/api/v2/transactions/{id}', {}).catch(() => undefined);
    type Created = Awaited<ReturnType<typeof client.request<'/api/v2/transactions', 'post'>>>;
    const status: Created extends { status: string } ? true : false = true;
    expect(status).toBe(true);
    // The named methods are typed from the same document: a body or answer it lacks does not compile.
    const wrong = () => {
      // @ts-expect-error a body without the document's required fields
      void client.transactions.create({ fromAddress: address() });
      // @ts-expect-error a query parameter the document does not have
      void client.transactions.list({ nothing: 1 });
      // @ts-expect-error a field the document's answer does not have
      void client.transactions.get(id).then((t) => t.nothing);
    };
    expect(typeof wrong).toBe('function');
    const paths: keyof PaymentsPaths = '/api/v2/test_helpers/transactions/{id}/advance_hold';
    expect(paths).toContain('advance_hold');
  });

  it('workspace: an operation the named methods do not cover, with the session', async () => {
    const workspace = new WorkspaceClient({ baseUrl: stack.workspaceUrl, email: stack.tenant.email, password: stack.tenant.password });
    const logs = await workspace.request('get', '/api/v1/workspaces/{id}/audit-logs', {
      params: { id: stack.tenant.workspaceId },
      query: { page: 1, limit: 5 },
    });
    expect(logs).toMatchObject({ success: true });
    expect(Array.isArray((logs as { data: unknown }).data)).toBe(true);
    const me = await workspace.request('get', '/identity/me');
    expect(me).toMatchObject({ success: true, data: { email: stack.tenant.email } });
  });

  it('workspace: named groups built on it (OAuth clients, customers, the customers’ self-service, the audit log)', async () => {
    const workspace = new WorkspaceClient({ baseUrl: stack.workspaceUrl, email: stack.tenant.email, password: stack.tenant.password });
    const ws = stack.tenant.workspaceId;
    const made = await workspace.oauthClients.create(ws, { name: 'generated', scopes: ['transactions:read'] });
    expect(made).toMatchObject({ name: 'generated' });
    const clientId = (made as { clientId: string }).clientId;
    expect((await workspace.oauthClients.list(ws)).clients.map((c) => c.clientId)).toContain(clientId);
    expect(await workspace.oauthClients.get(ws, clientId)).toMatchObject({ clientId });
    // The client works on the Payments API, then its tokens are revoked and it is deleted.
    const payments = new PaymentsClient({
      baseUrl: stack.paymentsUrl,
      clientId,
      clientSecret: (made as { clientSecret: string }).clientSecret,
    });
    expect((await payments.oauth.token()).scope).toBe('read:transactions');
    await workspace.oauthClients.revokeTokens(ws, clientId);
    await workspace.oauthClients.delete(ws, clientId);
    expect(await workspace.oauthClients.get(ws, clientId).catch((e) => e)).toBeInstanceOf(NotFoundError);

    const email = `buyer-${Date.now()}@example.com`;
    const customer = (await workspace.customers.create(ws, { email, firstName: 'Ada', lastName: 'Buyer' })) as { id: string };
    expect((await workspace.customers.list(ws).toArray()).map((c) => (c as { id: string }).id)).toContain(customer.id);
    expect(await workspace.customers.update(customer.id, { lastName: 'Payer' })).toMatchObject({ lastName: 'Payer' });
    expect(await workspace.customers.get(customer.id)).toMatchObject({ email, lastName: 'Payer' });
    await workspace.customers.delete(customer.id);

    const self = workspace.customerAuth(ws);
    const shopper = `self-${Date.now()}@example.com`;
    await self.register({ email: shopper, password: 'Sh0pper-password!' });
    const session = (await self.login({ email: shopper, password: 'Sh0pper-password!' })) as { accessToken: string };
    expect(await self.me(session.accessToken)).toMatchObject({ email: shopper });

    const audit = await workspace.auditLogs.list(ws).firstPage();
    expect(audit.data.length).toBeGreaterThan(0);
  });
});
