// The floor the request benchmarks compare our services with: a bare Fastify server, in a process of
// its own (as each service is), whose routes each do one postgres.js statement:
// - for create-transaction.ts, a POST that inserts into `bench_transactions` and answers 201 with the
//   row, and a GET that reads a row by its primary key (one indexed select);
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
