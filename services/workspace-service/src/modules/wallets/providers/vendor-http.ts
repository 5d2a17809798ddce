import type { CustodyProviderType } from '@holdfast/contracts';
import { refusalIn } from '@holdfast/outbound';
import type { Static, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { type Dispatcher, request } from 'undici';
import { ProviderError } from './adapter.js';

/** Largest vendor answer we read; anything bigger is treated as malformed. */
const MAX_BODY_BYTES = 1024 * 1024;

export interface VendorRequest {
  method: 'GET' | 'POST';
  /** Path and query, e.g. `/v1/wallets?walletSetId=ws_1`. */
  path: string;
  /** The exact body bytes sent (signers sign these). */
  body: string | undefined;
}

export interface VendorClientOptions {
  provider: CustodyProviderType;
  baseUrl: string;
  timeoutMs: number;
  /** Authentication headers for one request (bearer, API key + HMAC, stamp, basic). */
  authenticate: (req: VendorRequest) => Record<string, string>;
  /** The vendor's error text from an error body, when it has one. */
  errorMessage: (body: unknown) => string | undefined;
  dispatcher?: Dispatcher | undefined;
}

export interface VendorClient {
  /** Sends one request and checks the answer against `schema`; every failure is a ProviderError. */
  call<S extends TSchema>(method: 'GET' | 'POST', path: string, schema: S, body?: unknown): Promise<Static<S>>;
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

function failureOf(error: unknown, signal: AbortSignal): 'timeout' | 'unreachable' {
  const e = error as { code?: string; name?: string };
  if (signal.aborted || e?.name === 'TimeoutError' || (e?.code && TIMEOUT_CODES.has(e.code))) return 'timeout';
  return 'unreachable';
}

/** A short, single-line vendor text (vendors' messages end up in our error details). */
function clip(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 197)}...` : line || undefined;
}

async function readCapped(body: AsyncIterable<Buffer>): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string | undefined): { ok: true; value: unknown } | { ok: false } {
  if (text === undefined) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/**
 * The HTTP client of one custody vendor, on undici: a deadline on every call, no redirects
 * (credentials never follow one), a capped answer size, and the answer checked against the shape
 * the vendor documents. Timeouts, refusals, vendor errors and malformed answers all become a
 * ProviderError with a reason; nothing else escapes. The dispatcher is the outbound policy's
 * (wallet-providers/service.ts): outside `local` a connection to a non-public address is refused
 * (`address_refused`), whatever the host name resolved to when the config was saved.
 */
export function createVendorClient(options: VendorClientOptions): VendorClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  return {
    async call(method, path, schema, payload) {
      const body = payload === undefined ? undefined : JSON.stringify(payload);
      const signal = AbortSignal.timeout(options.timeoutMs);
      const headers: Record<string, string> = {
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.authenticate({ method, path, body }),
      };
      let status: number;
      let text: string | undefined;
      try {
        const res = await request(`${base}${path}`, {
          method,
          headers,
          body,
          signal,
          headersTimeout: options.timeoutMs,
          bodyTimeout: options.timeoutMs,
          ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
        });
        status = res.statusCode;
        text = await readCapped(res.body);
      } catch (error) {
        const refused = refusalIn(error);
        if (refused)
          throw new ProviderError(options.provider, 'address_refused', undefined, undefined, { cause: error, refusal: refused.message });
        throw new ProviderError(options.provider, failureOf(error, signal), undefined, undefined, { cause: error });
      }
      const parsed = parseJson(text);
      if (status < 200 || status >= 300) {
        const vendorMessage = clip(parsed.ok ? options.errorMessage(parsed.value) : undefined);
        const reason = status === 401 || status === 403 ? 'unauthorized' : status === 404 ? 'not_found' : 'vendor_error';
        throw new ProviderError(options.provider, reason, status, vendorMessage);
      }
      if (!parsed.ok || !Value.Check(schema, parsed.value)) {
        throw new ProviderError(options.provider, 'malformed_response', status);
      }
      return parsed.value as Static<typeof schema>;
    },
  };
}
