// The floor the create-transaction benchmark compares payments with: a bare Fastify server, in a
// process of its own (as payments is), with one POST route that does one postgres.js insert into
// `bench_transactions` (created by create-transaction.ts in the bench database) and answers 201 with
// the row, and one GET route that reads a row by its primary key (one indexed select). No auth, no
// rate limit, no validation, no outbox. DATABASE_URL names the database; the
// pool is payments' default size (DATABASE_POOL_SIZE 10). Prints its port on stdout.
import Fastify from 'fastify';
import postgres from 'postgres';

const sql = postgres(process.env.DATABASE_URL ?? '', { max: 10, onnotice: () => {} });
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
