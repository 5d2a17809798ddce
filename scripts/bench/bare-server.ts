// The floor the request benchmarks compare our services with: a bare Fastify server, in a process of
// its own (as each service is), whose routes each do one postgres.js statement:
// - for create-transaction.ts, a POST that inserts into `bench_transactions` and answers 201 with the
//   row, and a GET that reads a row by its primary key (one indexed select);
// - for create-transaction.ts too, the same-work route (`POST /same-work/transactions`, when
//   BENCH_SAME_WORK_PLATFORM names a platform): payments' own creation statement, imported from its
//   build (services/payments-service/dist: `repository.createSingle`, the SQL text itself, not a
//   copy), on a copy of the tables it writes (so that payments' relay ignores them), which checks the idempotency key, the duplicate and per-sender windows and writes the
//   row, its transition and its `transaction.created` outbox row in one statement under the
//   sender's advisory lock, run again on a lost race as payments does; with the event built by
//   payments' `transactionEvent`. What it leaves out is everything around the statement: auth,
//   rate limit, schema validation, fingerprint, the key's pre-lookup, the relay publishing;
// - for workspace-list.ts, a GET of one page of `bench_customers` (a copy of `workspace.customers`
//   with its shape, indexes and rows).
// Each benchmark creates its own table in the bench database. No auth, no rate limit, no validation,
// no outbox, no total. DATABASE_URL names the database; the pool is the services' default size
// (DATABASE_POOL_SIZE 10). Prints its port on stdout.
import Fastify from 'fastify';
import postgres from 'postgres';

// Named so that a bench can find its PostgreSQL backends (load.ts's `backendsOf`).
const sql = postgres(process.env.DATABASE_URL ?? '', { max: 10, onnotice: () => {}, connection: { application_name: 'bench-bare' } });
const app = Fastify({ logger: false });

interface Body {
  fromAddress: string;
  toAddress: string;
  amount: string;
}

app.post<{ Body: Body }>('/transactions', async (request, reply) => {
  const { fromAddress, toAddress, amount } = request.body;
  const key = request.headers['idempotency-key'];
  const [row] = await sql`
    insert into bench_transactions (from_address, to_address, amount, idempotency_key)
    values (${fromAddress}, ${toAddress}, ${amount}, ${typeof key === 'string' ? key : null})
    returning id, from_address as "fromAddress", to_address as "toAddress", amount::text as amount, created_at as "createdAt"`;
  return reply.code(201).send(row);
});

// The same-work route: payments' creation statement, on a connection bound to a copy of payments'
// three tables it writes (create-transaction.ts's `sameWorkSchema`: same columns, defaults, indexes,
// constraints and foreign keys), so that payments' outbox relay does not publish the route's events.
const SAME_WORK_SCHEMA = 'bench_same_work';
const sameWorkPlatform = process.env.BENCH_SAME_WORK_PLATFORM;
if (sameWorkPlatform) {
  const dist = new URL('../../services/payments-service/dist/modules/transactions/', import.meta.url);
  const { createTransactionsRepository } = (await import(
    new URL('repository.js', dist).href
  )) as typeof import('../../services/payments-service/src/modules/transactions/repository.ts');
  const { transactionEvent, newTransactionRef } = (await import(
    new URL('moves.js', dist).href
  )) as typeof import('../../services/payments-service/src/modules/transactions/moves.ts');
  const { SENDER_WINDOW_SECONDS } = (await import(
    new URL('sender-limits.js', dist).href
  )) as typeof import('../../services/payments-service/src/modules/transactions/sender-limits.ts');
  const { uuidv7 } = await import('@holdfast/contracts');
  const payments = postgres(process.env.DATABASE_URL ?? '', {
    max: 10,
    onnotice: () => {},
    connection: { application_name: 'bench-bare', search_path: SAME_WORK_SCHEMA },
  });
  const repository = createTransactionsRepository();
  // Payments' defaults: 10 creations a minute per sender, a 7-day hold, the platform's rescind rules.
  const senderWindow = { seconds: SENDER_WINDOW_SECONDS, limit: 10 };
  const holdSeconds = 7 * 24 * 3600;
  const rescindPolicy = { allowed: true, requiresReason: false, notifyRecipient: true };
  app.post<{ Body: Body }>('/same-work/transactions', async (request, reply) => {
    const { fromAddress, toAddress, amount } = request.body;
    const key = request.headers['idempotency-key'];
    const transaction = {
      id: uuidv7(),
      platformId: sameWorkPlatform,
      workspaceId: null,
      status: 'pending' as const,
      amount,
      currency: 'USDC' as const,
      fromAddress,
      toAddress,
      blockchainNetwork: 'base-sepolia' as const,
      chainId: 84532,
      orchestrationType: 'platform' as const,
      signerType: null,
      customerId: null,
      templateId: null,
      template: null,
      billingConfig: null,
      quoteId: null,
      feeAmount: null,
      metadata: {},
      idempotencyKey: typeof key === 'string' ? key : null,
      requestFingerprint: typeof key === 'string' ? key : '',
      // The default level (confirmed), as a platform without settings.finality gets it.
      requiredFinality: 'confirmed' as const,
    };
    const creation = {
      transaction,
      holdSeconds,
      rescindPolicy,
      actor: `platform:${sameWorkPlatform}`,
      event: transactionEvent('transaction.created', transaction, { transaction: newTransactionRef(transaction) }),
      senderWindow,
      duplicateWindowSeconds: null,
    } as Parameters<typeof repository.createSingle>[1];
    for (;;) {
      const outcome = await repository.createSingle(payments, creation);
      if (outcome.outcome === 'conflict') continue;
      if (outcome.outcome === 'refused') return reply.code(429).send({ error: 'refused' });
      return reply.code(201).send(outcome.row);
    }
  });
}

// The read floor: one row by its primary key.
app.get<{ Params: { id: string } }>('/transactions/:id', async (request, reply) => {
  const [row] = await sql`
    select id, from_address as "fromAddress", to_address as "toAddress", amount::text as amount, created_at as "createdAt"
    from bench_transactions where id = ${request.params.id}`;
  return row ? reply.send(row) : reply.code(404).send({ error: 'not found' });
});

// The list floor: one page of a workspace's customers.
app.get<{ Params: { id: string }; Querystring: { page?: string; limit?: string } }>('/workspaces/:id/customers', async (request) => {
  const limit = Number(request.query.limit ?? 20);
  const offset = (Number(request.query.page ?? 1) - 1) * limit;
  const rows = await sql`
    select * from bench_customers where workspace_id = ${request.params.id}
    order by created_at desc, id desc limit ${limit} offset ${offset}`;
  return { data: rows };
});

await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    void app
      .close()
      .then(() => sql.end())
      .then(() => process.exit(0));
  });
}
