// The floor the workspace-list benchmark compares workspace-service with: a bare Fastify server, in a
// process of its own (as workspace-service is), with one GET route that does one postgres.js select
// of one page from `bench_customers` (made by workspace-list.ts in the bench database with the shape,
// indexes and rows of `workspace.customers`) and answers 200 with the rows. No auth, no rate limit,
// no validation, no total. DATABASE_URL names the database; the pool is workspace-service's default
// size (DATABASE_POOL_SIZE 10). Prints its port on stdout.
import Fastify from 'fastify';
import postgres from 'postgres';

const sql = postgres(process.env.DATABASE_URL ?? '', { max: 10, onnotice: () => {} });
const app = Fastify({ logger: false });

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
