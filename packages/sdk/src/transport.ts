import { ConnectionError, errorFromAnswer, HoldfastError } from './errors.js';

/** Options every client takes. */
export interface TransportOptions {
  /** The API's host, e.g. `http://127.0.0.1:3001` (no `/api/v2`). */
  baseUrl: string;
  /**
   * Retries of a request that is safe to repeat (reads, and writes that carry an Idempotency-Key)
   * after a network error, a 429, a 502, a 503 or a 504. Default 2; 0 turns retrying off.
   */
  maxRetries?: number;
  /** Give up on one attempt after this long (milliseconds). Default 30000. */
  timeoutMs?: number;
  /** Longest wait between two attempts, also when `Retry-After` asks for more (milliseconds). Default 30000. */
  maxRetryDelayMs?: number;
  /** The `fetch` to use; the platform's by default. */
  fetch?: typeof fetch;
  /** Sent as `User-Agent` after the SDK's own. */
  userAgent?: string;
}

/** Where a request's bearer token comes from; `renew` is called once after a 401. */
export interface TokenSource {
  token: () => Promise<string>;
  renew?: (rejected: string) => Promise<void>;
}

export interface ApiRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined> | undefined;
  body?: unknown;
  headers?: Record<string, string>;
  /** Safe to send again (a read, or a write with an Idempotency-Key): retried on network errors, 429, 502, 503, 504. */
  retry: boolean;
  auth?: TokenSource;
  signal?: AbortSignal | undefined;
}

export interface ApiAnswer<T> {
  status: number;
  headers: Headers;
  body: T;
}

export const SDK_VERSION = '0.2.0';
// 502 and 504: a proxy in front of Holdfast lost the answer or timed out; safe for what is retried.
const RETRIABLE_STATUSES = new Set([429, 502, 503, 504]);

/** Full-jitter exponential backoff: a random wait up to 500 ms, 1 s, 2 s... (capped). */
export function backoffMs(attempt: number, capMs: number, random: () => number = Math.random): number {
  return Math.round(random() * Math.min(capMs, 500 * 2 ** attempt));
}

export function createTransport(options: TransportOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const maxRetries = options.maxRetries ?? 2;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxDelay = options.maxRetryDelayMs ?? 30_000;
  const doFetch = options.fetch ?? globalThis.fetch;
  const userAgent = `holdfast-sdk-node/${SDK_VERSION}${options.userAgent ? ` ${options.userAgent}` : ''}`;

  function urlOf(path: string, query: ApiRequest['query']): string {
    const url = new URL(`${base}${path}`);
    for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    return url.toString();
  }

  async function once<T>(request: ApiRequest, token: string | undefined): Promise<ApiAnswer<T>> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': userAgent, ...request.headers };
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (request.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.body);
    }
    const signal = request.signal ? AbortSignal.any([request.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
    let response: Response;
    try {
      response = await doFetch(urlOf(request.path, request.query), { method: request.method, headers, body, signal });
    } catch (error) {
      if (request.signal?.aborted) throw error;
      throw new ConnectionError({
        code: error instanceof DOMException && error.name === 'TimeoutError' ? 'TIMEOUT' : 'NETWORK_ERROR',
        message: `${request.method} ${request.path}: ${(error as Error).message}`,
        cause: error,
      });
    }
    const text = await response.text().catch((error: unknown) => {
      throw new ConnectionError({ code: 'NETWORK_ERROR', message: `${request.method} ${request.path}: the answer was cut`, cause: error });
    });
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    if (response.status >= 400) throw errorFromAnswer(response.status, parsed, response.headers);
    return { status: response.status, headers: response.headers, body: parsed as T };
  }

  async function withAuth<T>(request: ApiRequest): Promise<ApiAnswer<T>> {
    if (!request.auth) return once<T>(request, undefined);
    const token = await request.auth.token();
    try {
      return await once<T>(request, token);
    } catch (error) {
      // An expired or revoked token: renew it once and repeat (the spec's advice to clients).
      if (!(error instanceof HoldfastError && error.statusCode === 401 && request.auth.renew)) throw error;
      await request.auth.renew(token);
      return once<T>(request, await request.auth.token());
    }
  }

  return {
    baseUrl: base,
    /** Sends a request, retrying it when it is safe to; resolves with the answer or throws a HoldfastError. */
    async send<T>(request: ApiRequest): Promise<ApiAnswer<T>> {
      for (let attempt = 0; ; attempt += 1) {
        try {
          return await withAuth<T>(request);
        } catch (error) {
          // IDEMPOTENCY_KEY_IN_USE: the first attempt of this key (whose answer was lost) still runs; its result comes next.
          const retriable =
            error instanceof ConnectionError ||
            (error instanceof HoldfastError && (RETRIABLE_STATUSES.has(error.statusCode ?? 0) || error.code === 'IDEMPOTENCY_KEY_IN_USE'));
          if (!request.retry || !retriable || attempt >= maxRetries) throw error;
          const asked = (error as HoldfastError).retryAfterSeconds;
          const wait = asked !== undefined ? Math.min(asked * 1000, maxDelay) : backoffMs(attempt, maxDelay);
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
      }
    },
  };
}

export type Transport = ReturnType<typeof createTransport>;
