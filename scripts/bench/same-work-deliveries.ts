// The floor webhooks.ts compares the dispatcher with (issue 34): a loop, in a process of its own (as
// the dispatcher is), that does the same durable work per delivery and nothing else:
//
//   1. consumes an event from JetStream (a durable pull consumer of a stream of its own, explicit
//      acknowledgement),
//   2. stores it with one pending delivery per matching subscription in one statement (the
//      dispatcher's intake statement, without its NOTIFY), then acknowledges the message (after the
//      commit, as the dispatcher's intake does),
//   3. signs each delivery's body with the dispatcher's own `deliveryHeaders` (both signatures),
//   4. POSTs it with undici,
//   5. stores the result: the attempt's log entry and the delivery's new status in one statement,
//      without waiting for the WAL flush (as the dispatcher stores its results).
//
// Its tables are copies of the dispatcher's (received_events, deliveries, delivery_attempts, in the
// schema `bench_same_work`: same columns, indexes, constraints and foreign keys; webhooks.ts's
// `copyTables`), so that the dispatcher never claims its deliveries; the subscriptions are the
// dispatcher's own rows. No lease, no retry schedule, no circuit, no per-subscription slots, no
// batching across events. Environment: DATABASE_URL, NATS_URL, BENCH_STREAM and BENCH_SUBJECT (made
// by webhooks.ts), BENCH_SECRET (the signing secret of every subscription). `POST /in-flight/N` sets
// how many events it handles at once (each with all its deliveries); GET /health answers 200. Prints
// its port on stdout.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import postgres from 'postgres';
import { Agent, request } from 'undici';

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const stream = env('BENCH_STREAM');
const subject = env('BENCH_SUBJECT');
const { deliveryHeaders, signingSecret } = (await import(
  new URL('../../services/webhook-dispatcher/dist/modules/deliveries/signing.js', import.meta.url).href
)) as typeof import('../../services/webhook-dispatcher/src/modules/deliveries/signing.ts');
// Made ready once, as the dispatcher keeps each subscription's opened secret.
const secret = signingSecret(env('BENCH_SECRET'));

// The dispatcher's pool size and its schema (after the copies, so that `subscriptions` is its own).
const sql = postgres(env('DATABASE_URL'), {
  max: 10,
  onnotice: () => {},
  connection: { application_name: 'bench-same-work-deliveries', search_path: 'bench_same_work,webhooks' },
});
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 100 });

interface Created {
  id: string;
  subscription_id: string;
  url: string;
}
interface Event {
  id: string;
  type: string;
  createdAt: string;
  platformId: string;
  workspaceId?: string | null;
  data: unknown;
}

async function deliver(event: Event, delivery: Created): Promise<void> {
  const body = JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt, data: event.data });
  const headers = deliveryHeaders({
    body,
    eventType: event.type,
    deliveryId: delivery.id,
    timestamp: Math.floor(Date.now() / 1000),
    secrets: [secret],
  });
  const started = performance.now();
  let statusCode: number | null = null;
  let responseBody: string | null = null;
  let error: string | null = null;
  try {
    const res = await request(delivery.url, { method: 'POST', headers, body, dispatcher: agent });
    statusCode = res.statusCode;
    responseBody = (await res.body.text()).slice(0, 1024);
  } catch (e) {
    error = String(e);
  }
  const success = statusCode !== null && statusCode >= 200 && statusCode < 300;
  const logged = { ...headers, 'x-webhook-signature': '[redacted]', 'webhook-signature': '[redacted]' };
  await sql`
    with no_flush_wait as (select set_config('synchronous_commit', 'off', true) as setting),
    attempt as (
      insert into delivery_attempts (id, subscription_id, delivery_id, event_id, event_type, attempt, success, status_code,
                                     response_time_ms, error_message, request_headers, response_body)
      select gen_random_uuid(), ${delivery.subscription_id}, ${delivery.id}, ${event.id}, ${event.type}, 1, ${success},
             ${statusCode}, ${Math.round(performance.now() - started)}, ${error}, ${JSON.stringify(logged)}::text::jsonb, ${responseBody}
      from no_flush_wait
      returning 1)
    update deliveries set status = ${success ? 'succeeded' : 'failed'}, attempt_count = 1, last_status_code = ${statusCode},
      last_error = ${error}, updated_at = now()
    where id = ${delivery.id} and (select count(*) from attempt) >= 0`;
}

async function handle(event: Event): Promise<Created[]> {
  return sql<Created[]>`
    with event as (
      insert into received_events (id, type, platform_id, workspace_id, payload, occurred_at, trace_context)
      values (${event.id}, ${event.type}, ${event.platformId}, ${event.workspaceId ?? null}, ${JSON.stringify(event)}::text::jsonb,
              ${event.createdAt}, null)
      on conflict (id) do nothing
      returning id, type, platform_id, workspace_id)
    insert into deliveries (id, subscription_id, event_id, event_type)
    select gen_random_uuid(), s.id, event.id, event.type
    from event
    join subscriptions s on s.is_active and event.type = any(s.event_types)
      and (s.platform_id = event.platform_id or s.workspace_id = event.workspace_id)
    returning id, subscription_id, (select url from subscriptions where id = subscription_id) as url`;
}

let inFlight = 10;
let running = 0;
let wake: (() => void) | null = null;
const slot = async () => {
  while (running >= inFlight) await new Promise<void>((resolve) => (wake = resolve));
  running += 1;
};
const release = () => {
  running -= 1;
  const w = wake;
  wake = null;
  w?.();
};

const nc = await connect({ servers: env('NATS_URL').split(','), name: 'bench-same-work-deliveries' });
const jsm = await jetstreamManager(nc);
await jsm.consumers.add(stream, { durable_name: 'same-work', ack_policy: AckPolicy.Explicit, filter_subject: subject });
const consumer = await jetstream(nc).consumers.get(stream, 'same-work');

const server = createServer((req, res) => {
  const match = /^\/in-flight\/(\d+)$/.exec(req.url ?? '');
  if (req.method === 'POST' && match) {
    inFlight = Number(match[1]);
    wake?.();
  }
  res.writeHead(200).end();
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});

const messages = await consumer.consume({ max_messages: 256 });
process.once('SIGTERM', () => {
  messages.stop();
  server.close();
  void agent
    .close()
    .then(() => sql.end())
    .then(() => nc.close())
    .then(() => process.exit(0));
});
for await (const message of messages) {
  await slot();
  void (async () => {
    try {
      const event = message.json<Event>();
      const created = await handle(event);
      // Acknowledged after the commit: a crash before it redelivers the event.
      message.ack();
      await Promise.all(created.map((d) => deliver(event, d)));
    } catch (error) {
      process.stderr.write(`[same-work-deliveries] ${String(error)}\n`);
      message.nak();
    } finally {
      release();
    }
  })();
}
