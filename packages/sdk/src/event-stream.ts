import type { DeliveredEvent, EventType } from '@holdfast/contracts';
import { createParser } from 'eventsource-parser';
import { errorFromAnswer, HoldfastError } from './errors.js';
import type { paths as PaymentsPaths } from './generated/payments-openapi.js';
import { backoffMs, type TokenSource } from './transport.js';

/** One event of the stream: `id` is its stream position (give it back as `lastEventId` to resume). */
export interface StreamedEvent {
  id: string;
  event: DeliveredEvent;
}

export type StreamStatus =
  | { state: 'connecting'; attempt: number }
  | { state: 'connected'; lastEventId: string | undefined }
  | { state: 'reconnecting'; attempt: number; inMs: number; error: Error };

export interface EventStreamOptions {
  /** Only these types (all the token may read when absent). */
  types?: EventType[];
  /** Resume after this stream position (the `id` of the last event handled). */
  lastEventId?: string;
  signal?: AbortSignal;
  /** Called when the stream connects, and before each reconnection (for progress output). */
  onStatus?: (status: StreamStatus) => void;
  /** Reconnect attempts in a row before giving up; default unlimited. */
  maxReconnects?: number;
}

/** Heartbeats come every 15 s: three missed means the connection is gone. */
const SILENCE_MS = 45_000;
// An SSE stream, not a JSON answer, so it is fetched here; the path is still the document's.
const PATH = '/api/v2/events/stream' satisfies keyof PaymentsPaths;

/**
 * The platform's events live, from `GET /api/v2/events/stream` (docs/api/events-stream.md),
 * reconnecting with `Last-Event-ID` after a drop so no event is missed. Ends when `signal` aborts;
 * throws a HoldfastError on a refusal (401, 403, 400) or after `maxReconnects` failed attempts.
 */
export async function* streamEvents(
  baseUrl: string,
  auth: TokenSource,
  doFetch: typeof fetch,
  options: EventStreamOptions = {},
): AsyncGenerator<StreamedEvent> {
  let lastEventId = options.lastEventId;
  let failures = 0;
  let renewed = false;
  const query = options.types?.length ? `?types=${encodeURIComponent(options.types.join(','))}` : '';
  while (!options.signal?.aborted) {
    options.onStatus?.({ state: 'connecting', attempt: failures + 1 });
    const connection = new AbortController();
    const abort = () => connection.abort();
    options.signal?.addEventListener('abort', abort, { once: true });
    let watchdog: ReturnType<typeof setTimeout> | undefined;
    const feed = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => connection.abort(new Error('no heartbeat for 45 s')), SILENCE_MS);
    };
    try {
      const token = await auth.token();
      const headers: Record<string, string> = { accept: 'text/event-stream', authorization: `Bearer ${token}` };
      if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
      feed();
      const response = await doFetch(`${baseUrl}${PATH}${query}`, { headers, signal: connection.signal });
      if (response.status !== 200 || !response.body) {
        const text = await response.text();
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
        const error = errorFromAnswer(response.status, body, response.headers);
        if (response.status === 401 && auth.renew && !renewed) {
          renewed = true;
          await auth.renew(token);
          continue;
        }
        throw error;
      }
      renewed = false;
      failures = 0;
      options.onStatus?.({ state: 'connected', lastEventId });
      // The SSE framing (fields, comments, multi-line data, CRLF) is eventsource-parser's (ADR 60).
      const decoder = new TextDecoder();
      const ready: StreamedEvent[] = [];
      const parser = createParser({
        onEvent: (message) => {
          ready.push({ id: message.id ?? '', event: JSON.parse(message.data) as DeliveredEvent });
        },
      });
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        feed();
        parser.feed(decoder.decode(chunk, { stream: true }));
        for (let next = ready.shift(); next; next = ready.shift()) {
          if (next.id) lastEventId = next.id;
          yield next;
        }
      }
      throw new Error('the stream ended');
    } catch (error) {
      if (options.signal?.aborted) return;
      const refused = error instanceof HoldfastError && error.statusCode !== null && ![429, 502, 503, 504].includes(error.statusCode);
      if (refused) throw error;
      failures += 1;
      if (options.maxReconnects !== undefined && failures > options.maxReconnects) throw error;
      const inMs =
        error instanceof HoldfastError && error.retryAfterSeconds !== undefined
          ? error.retryAfterSeconds * 1000
          : 1000 + backoffMs(failures, 15_000);
      options.onStatus?.({ state: 'reconnecting', attempt: failures, inMs, error: error as Error });
      await new Promise((resolve) => setTimeout(resolve, inMs));
    } finally {
      clearTimeout(watchdog);
      options.signal?.removeEventListener('abort', abort);
      connection.abort();
    }
  }
}
