import { STREAMS, type StreamName } from '@holdfast/contracts';
import { DeliverPolicy } from '@nats-io/jetstream';
import type { Context } from '@opentelemetry/api';
import { type Bus, prefixed } from './bus.js';
import { streamName } from './streams.js';
import { contextOfHeaders } from './trace-headers.js';

export interface FollowedMessage {
  /** The message's position in the stream: strictly increasing, never reused while the stream lives. */
  seq: number;
  subject: string;
  payload: unknown;
  /** The publisher's trace context (the message's headers): a reader's span of it continues that trace. */
  trace: Context;
}

export interface FollowOptions {
  stream: StreamName;
  /** Contract subject (without prefix), e.g. `events.>`. */
  filterSubject: string;
  /** Resume after this stream position; without it, only messages published from now on. */
  afterSeq?: number;
  signal: AbortSignal;
}

/**
 * Reads a stream in order with an ephemeral ordered consumer (no acks, no durable state): for
 * readers that keep their own position, such as a client resuming with `Last-Event-ID`. Resolves
 * once the consumer exists (so a caller can still answer an error); the messages end when `signal`
 * aborts.
 */
export async function followStream(bus: Bus, options: FollowOptions): Promise<AsyncIterable<FollowedMessage>> {
  const filter = prefixed(bus, options.filterSubject);
  if (!STREAMS[options.stream].subjects.some((s) => options.filterSubject.startsWith(s.replace('>', '')))) {
    throw new Error(`filter ${options.filterSubject} is not within stream ${options.stream}`);
  }
  const consumer = await bus.js.consumers.get(streamName(bus, options.stream), {
    filter_subjects: filter,
    ...(options.afterSeq !== undefined
      ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: options.afterSeq + 1 }
      : { deliver_policy: DeliverPolicy.New }),
  });
  const messages = await consumer.consume({ max_messages: 100 });
  const stop = () => messages.stop();
  if (options.signal.aborted) stop();
  else options.signal.addEventListener('abort', stop, { once: true });
  return (async function* read() {
    try {
      for await (const message of messages) {
        let payload: unknown;
        try {
          payload = message.json();
        } catch {
          continue;
        }
        yield { seq: message.seq, subject: message.subject.slice(bus.prefix.length), payload, trace: contextOfHeaders(message.headers) };
      }
    } finally {
      options.signal.removeEventListener('abort', stop);
      messages.stop();
    }
  })();
}
