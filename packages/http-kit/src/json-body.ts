import type { FastifyInstance } from 'fastify';

/**
 * JSON bodies parsed with each number's source text kept: `JSON.parse` turns `0.12345678901234567`
 * into the nearest double and the digits the client wrote are gone, so an amount could be rounded
 * without anyone noticing. The parser is `JSON.parse` with a reviver that reads the source text
 * (`context.source`, ES2025 "JSON.parse source text access", Node 22+) of every number and keeps it
 * on the object that holds it, under a symbol: invisible to schema validation, serialisation and
 * `Object.keys`. A service that needs exact digits asks `numberSourceOf(body, 'amount')`.
 * Prototype poisoning is refused as Fastify's default parser does (400 INVALID_JSON).
 */
const SOURCES = Symbol('holdfast.jsonNumberSources');

type Holder = Record<PropertyKey, unknown>;

function badJson(message: string): SyntaxError {
  return Object.assign(new SyntaxError(message), { statusCode: 400 });
}

function reviver(this: Holder, key: string, value: unknown, context?: { source?: string }): unknown {
  if (key === '__proto__' || (key === 'constructor' && value !== null && typeof value === 'object' && 'prototype' in value)) {
    throw badJson('Object contains forbidden prototype property');
  }
  if (typeof value === 'number' && context?.source !== undefined) {
    let sources = this[SOURCES] as Record<string, string> | undefined;
    if (!sources) {
      sources = {};
      Object.defineProperty(this, SOURCES, { value: sources, enumerable: false });
    }
    sources[key] = context.source;
  }
  return value;
}

/** `JSON.parse` keeping the source text of every number (see `numberSourceOf`). */
export function parseJsonKeepingNumbers(text: string): unknown {
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown);
}

/** The text a JSON number was written as in the request body (`"0.1234567890123456789"`), when it was one. */
export function numberSourceOf(holder: unknown, key: string): string | undefined {
  if (holder === null || typeof holder !== 'object') return undefined;
  return ((holder as Holder)[SOURCES] as Record<string, string> | undefined)?.[key];
}

/** Replaces Fastify's JSON parser (same errors: empty body, invalid JSON, prototype poisoning). */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text === '' || /^\s*$/.test(text)) {
      done(
        Object.assign(new Error('Body cannot be empty when content-type is set to application/json'), {
          code: 'FST_ERR_CTP_EMPTY_JSON_BODY',
          statusCode: 400,
        }),
      );
      return;
    }
    try {
      done(null, parseJsonKeepingNumbers(text));
    } catch (error) {
      done(error instanceof SyntaxError ? Object.assign(error, { statusCode: 400 }) : (error as Error), undefined);
    }
  });
}
