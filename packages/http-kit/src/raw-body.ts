import { Readable } from 'node:stream';
import { AppError } from '@holdfast/contracts';
import type { FastifyRequest, preParsingAsyncHookHandler } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request body exactly as received, on routes with the `captureRawBody()` preParsing hook. */
    rawBody?: Buffer;
  }
}

/**
 * A route's `preParsing` hook that reads the whole body into `request.rawBody` before the usual
 * parsing (which then runs unchanged, with its usual errors), for routes that check a signature
 * over the exact bytes sent (inbound webhooks). It holds the route's body limit itself, because
 * it reads before the parser does. Hooks listed after it in the same `preParsing` array see
 * `request.rawBody`:
 *
 *     app.post(url, { preParsing: [captureRawBody(), verifySignature] }, handler)
 */
export function captureRawBody(): preParsingAsyncHookHandler {
  return async (request: FastifyRequest, _reply, payload) => {
    const limit = request.routeOptions.bodyLimit;
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) throw tooLarge();
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of payload) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      size += buffer.length;
      if (size > limit) throw tooLarge();
      chunks.push(buffer);
    }
    request.rawBody = Buffer.concat(chunks, size);
    return Readable.from([request.rawBody]);
  };
}

const tooLarge = () => new AppError('PAYLOAD_TOO_LARGE', 'Request body is larger than the limit');
