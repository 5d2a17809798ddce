import { WEBHOOK_LIMITS } from '@holdfast/contracts';
import { errorCauses, refusalIn } from '@holdfast/outbound';
import { type Dispatcher, request } from 'undici';

/** What one POST to a receiver came to. */
export interface AttemptOutcome {
  success: boolean;
  statusCode: number | null;
  responseTimeMs: number;
  errorMessage: string | null;
  /** The start of the answer's body, at most WEBHOOK_LIMITS.responseBodyMaxBytes bytes. */
  responseBody: string | null;
  /** A 429's or 503's Retry-After, in milliseconds (capped at RETRY_AFTER_MAX_MS). */
  retryAfterMs: number | null;
}

/** A Retry-After above this is taken as this: a receiver cannot park a subscription for longer. */
export const RETRY_AFTER_MAX_MS = 24 * 60 * 60 * 1000;
/** Bytes of an answer read at most (the rest is discarded with the connection). */
const READ_AT_MOST = 64 * 1024;

export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return null;
  const trimmed = text.trim();
  let ms: number;
  if (/^\d+$/.test(trimmed)) ms = Number(trimmed) * 1000;
  else {
    const at = Date.parse(trimmed);
    if (Number.isNaN(at)) return null;
    ms = at - now;
  }
  return Math.min(Math.max(0, ms), RETRY_AFTER_MAX_MS);
}

/** The first `max` bytes of a UTF-8 buffer without a broken character at the cut, NULs removed (PostgreSQL text refuses them). */
export function cutUtf8(buffer: Buffer, max: number): string {
  let end = Math.min(buffer.length, max);
  if (end < buffer.length) {
    // Step back over continuation bytes to the start of the character the cut split.
    let start = end;
    while (start > 0 && ((buffer[start] ?? 0) & 0xc0) === 0x80) start -= 1;
    end = start;
  }
  return buffer.subarray(0, end).toString('utf8').replaceAll('\u0000', '');
}

/** A short, secret-free description of why no answer came. */
export function describeFailure(error: unknown, timeoutMs: number): string {
  const refused = refusalIn(error);
  if (refused) return refused.message;
  const chain = errorCauses(error);
  if (chain.some((e) => e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError')))
    return `no answer within ${timeoutMs} ms`;
  const coded = chain.find((e): e is NodeJS.ErrnoException => e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string');
  if (coded) return `${coded.code}: ${coded.message}`.slice(0, 500);
  return (error instanceof Error ? error.message : String(error)).slice(0, 500);
}

/**
 * POSTs one signed body. Never throws: every failure is an outcome. Redirects are not followed
 * (a 3xx is a failure), so a receiver cannot bounce a delivery to an address the policy refuses.
 */
export async function sendAttempt(input: {
  dispatcher: Dispatcher;
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const response = await request(input.url, {
      method: 'POST',
      headers: input.headers,
      body: input.body,
      dispatcher: input.dispatcher,
      signal: AbortSignal.timeout(input.timeoutMs),
      headersTimeout: input.timeoutMs,
      bodyTimeout: input.timeoutMs,
    });
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let readBytes = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      readBytes += chunk.length;
      if (keptBytes <= WEBHOOK_LIMITS.responseBodyMaxBytes) {
        kept.push(chunk);
        keptBytes += chunk.length;
      }
      if (readBytes > READ_AT_MOST) {
        response.body.destroy();
        break;
      }
    }
    const statusCode = response.statusCode;
    const success = statusCode >= 200 && statusCode < 300;
    return {
      success,
      statusCode,
      responseTimeMs: elapsed(),
      errorMessage: success ? null : `receiver answered ${statusCode}`,
      responseBody: keptBytes === 0 ? '' : cutUtf8(Buffer.concat(kept), WEBHOOK_LIMITS.responseBodyMaxBytes),
      retryAfterMs: statusCode === 429 || statusCode === 503 ? parseRetryAfter(response.headers['retry-after']) : null,
    };
  } catch (error) {
    return {
      success: false,
      statusCode: null,
      responseTimeMs: elapsed(),
      errorMessage: describeFailure(error, input.timeoutMs),
      responseBody: null,
      retryAfterMs: null,
    };
  }
}
