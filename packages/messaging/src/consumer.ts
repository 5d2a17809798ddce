import {
  DomainEvent,
  DURABLE_CONSUMERS,
  type DurableConsumerDefinition,
  PAYMENTS_EVENTS,
  STREAMS,
  type StreamName,
} from '@holdfast/contracts';
import { failSpan, type Logger, SpanKind, withSpan } from '@holdfast/logging';
import {
  AckPolicy,
  type Consumer,
  type ConsumerConfig,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  type JsMsg,
} from '@nats-io/jetstream';
import type { Static, TSchema } from '@sinclair/typebox';
import { type Bus, prefixed, prefixedName } from './bus.js';
import { NonRetryableError, RetryableError } from './errors.js';
import { streamName } from './streams.js';
import { contextOfHeaders } from './trace-headers.js';
import { assertPayload, PayloadError } from './validate.js';

export interface MessageMeta {
  subject: string;
  streamSequence: number;
  deliveryCount: number;
  msgId: string | undefined;
}

export interface ConsumerOptions<S extends TSchema> {
  bus: Bus;
  stream: StreamName;
  /** Durable name from CONSUMERS: instances of one process share the work. */
  durable: string;
  /** Contract subject (without prefix), e.g. `events.payments.>` or `chain.base-sepolia.>`: the consumer's, checked. */
  filterSubject: string;
  schema: S;
  handler: (payload: Static<S>, meta: MessageMeta) => Promise<void>;
  logger: Logger;
  /** Messages handled at once by this instance; 1 keeps the stream's order. */
  concurrency?: number;
}

export interface RunningConsumer {
  stop: () => Promise<void>;
}

const ns = (ms: number) => ms * 1_000_000;

/** Redelivery delay after the n-th failed delivery: 1 s, 2 s, 4 s... capped at one minute. */
export function backoffMs(deliveryCount: number): number {
  return Math.min(1000 * 2 ** Math.max(0, deliveryCount - 1), 60_000);
}

/** What the NATS setup gives every durable consumer (DURABLE_CONSUMERS), and a test's own. */
export interface ConsumerSettings {
  /** Deliveries before a message is given up (then logged); -1 for never. */
  maxDeliver: number;
  ackWaitMs: number;
}

export const DEFAULT_CONSUMER_SETTINGS: ConsumerSettings = { maxDeliver: -1, ackWaitMs: 30_000 };

/**
 * Creates a durable consumer, or brings its settings up to date (the NATS setup, for every one of
 * DURABLE_CONSUMERS; a test for its own). Needs the JetStream administration a process's NATS user
 * does not have.
 */
export async function ensureConsumer(
  bus: Bus,
  definition: Omit<DurableConsumerDefinition, 'owner'>,
  settings: ConsumerSettings = DEFAULT_CONSUMER_SETTINGS,
): Promise<void> {
  const stream = streamName(bus, definition.stream);
  const config: Partial<ConsumerConfig> & { durable_name: string } = {
    durable_name: prefixedName(bus, definition.name),
    filter_subject: prefixed(bus, definition.filterSubject),
    ack_policy: AckPolicy.Explicit,
    deliver_policy: definition.deliverPolicy === 'new' ? DeliverPolicy.New : DeliverPolicy.All,
    ack_wait: ns(settings.ackWaitMs),
    max_deliver: settings.maxDeliver,
    max_ack_pending: 1000,
  };
  try {
    await bus.jsm.consumers.info(stream, config.durable_name);
    const { durable_name: _name, deliver_policy: _policy, ack_policy: _ack, ...updatable } = config;
    await bus.jsm.consumers.update(stream, config.durable_name, updatable);
  } catch (error) {
    if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound)) throw error;
    await bus.jsm.consumers.add(stream, config);
  }
}

/** Creates every durable consumer of DURABLE_CONSUMERS under the bus's prefix (the NATS setup). */
export async function ensureConsumers(bus: Bus, settings: ConsumerSettings = DEFAULT_CONSUMER_SETTINGS): Promise<void> {
  for (const definition of Object.values(DURABLE_CONSUMERS)) await ensureConsumer(bus, definition, settings);
}

/**
 * The existing durable consumer, never created here: the process's NATS user may only read it. A
 * missing one, or one with another filter, means the NATS setup has not run for this release.
 */
async function bindConsumer(bus: Bus, stream: string, durable: string, filterSubject: string) {
  const missing = (why: string) =>
    new Error(
      `durable consumer ${durable} of stream ${stream} ${why}: run the NATS setup first (bundle/nats-setup.js of payments-service; ./scripts/start and infra/k8s run it before the processes)`,
    );
  let consumer: Consumer;
  try {
    consumer = await bus.js.consumers.get(stream, durable);
  } catch (error) {
    if (
      error instanceof JetStreamApiError &&
      (error.code === JetStreamApiCodes.ConsumerNotFound || error.code === JetStreamApiCodes.StreamNotFound)
    ) {
      throw missing('does not exist');
    }
    throw error;
  }
  const info = await consumer.info(true);
  if (info.config.filter_subject !== filterSubject) throw missing(`filters ${info.config.filter_subject}, not ${filterSubject}`);
  return consumer;
}

/**
 * A durable pull consumer whose payloads are checked against a contract. The handler's outcome
 * decides the message's fate: success acks, RetryableError (or any unknown error) naks with a
 * back-off, NonRetryableError and contract violations terminate it.
 */
export async function startConsumer<S extends TSchema>(options: ConsumerOptions<S>): Promise<RunningConsumer> {
  const { bus, schema, handler } = options;
  const stream = streamName(bus, options.stream);
  const durable = prefixedName(bus, options.durable);
  const log = options.logger.child({ component: 'consumer', consumer: options.durable });
  if (!STREAMS[options.stream].subjects.some((s) => options.filterSubject.startsWith(s.replace('>', '')))) {
    throw new Error(`filter ${options.filterSubject} is not within stream ${options.stream}`);
  }
  const consumer = await bindConsumer(bus, stream, durable, prefixed(bus, options.filterSubject));
  const messages = await consumer.consume({ max_messages: Math.max(10, (options.concurrency ?? 1) * 2) });

  async function handle(message: JsMsg): Promise<void> {
    const meta: MessageMeta = {
      subject: message.subject.slice(bus.prefix.length),
      streamSequence: message.seq,
      deliveryCount: message.info.deliveryCount,
      msgId: message.headers?.get('Nats-Msg-Id') || undefined,
    };
    // A consumer span under the producer's (the headers carry its trace context): the handler's
    // writes, logs and outbox rows continue the trace of the message.
    const span = {
      kind: SpanKind.CONSUMER,
      parent: contextOfHeaders(message.headers),
      attributes: {
        'messaging.system': 'nats',
        'messaging.destination.name': meta.subject,
        'messaging.consumer.group.name': options.durable,
        'messaging.message.id': meta.msgId ?? '',
        'messaging.nats.delivery_count': meta.deliveryCount,
      },
    };
    await withSpan(`${meta.subject} process`, span, async (active) => {
      try {
        const payload: unknown = message.json();
        assertPayload(schema, payload, meta.subject);
        await handler(payload, meta);
        message.ack();
      } catch (error) {
        failSpan(active, error);
        if (error instanceof NonRetryableError || error instanceof PayloadError || error instanceof SyntaxError) {
          log.error({ err: error, ...meta }, 'message dropped: it cannot succeed');
          message.term();
          return;
        }
        const delay = error instanceof RetryableError && error.delayMs !== undefined ? error.delayMs : backoffMs(meta.deliveryCount);
        log.warn({ err: error, ...meta, retryInMs: delay }, 'message failed; will be redelivered');
        message.nak(delay);
      }
    });
  }

  const concurrency = Math.max(1, options.concurrency ?? 1);
  const inFlight = new Set<Promise<void>>();
  const loop = (async () => {
    for await (const message of messages) {
      const task = handle(message).finally(() => inFlight.delete(task));
      inFlight.add(task);
      if (inFlight.size >= concurrency) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
  })();

  log.info({ stream, filter: options.filterSubject }, 'consumer started');
  return {
    stop: async () => {
      messages.stop();
      await loop;
    },
  };
}

/**
 * A durable consumer of payments' domain events: the EVENTS stream filtered to payments' subjects
 * (`events.payments.>`; what another user might publish on EVENTS is never read as payments'),
 * each payload checked against `DomainEvent` (the dispatcher's intake, workspace's notifications).
 */
export function startDomainEventConsumer(
  options: Omit<ConsumerOptions<typeof DomainEvent>, 'stream' | 'filterSubject' | 'schema'>,
): Promise<RunningConsumer> {
  return startConsumer({ ...options, stream: STREAMS.EVENTS.name, filterSubject: PAYMENTS_EVENTS, schema: DomainEvent });
}
