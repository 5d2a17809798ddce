import { AppError } from '@holdfast/contracts';
import type { FastifyInstance } from 'fastify';

/**
 * The deepest nesting of arrays and objects a JSON body may have (docs/errors.md). `JSON.parse`
 * with a reviver recurses once per level: about 2,500 levels overflowed the stack and answered 500
 * on every JSON route. No Holdfast body needs more than a few levels; free-form objects (`metadata`,
 * `config`) are bounded further by their schemas.
 */
export const MAX_JSON_DEPTH = 64;

/** Whether `text` nests arrays and objects deeper than `limit` (strings skipped): one pass, no recursion. */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

function tooDeep(): AppError {
  return new AppError('VALIDATION_ERROR', `The JSON body nests arrays or objects more than ${MAX_JSON_DEPTH} levels deep`, {
    maxDepth: MAX_JSON_DEPTH,
  });
}

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
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      done(tooDeep(), undefined);
      return;
    }
    try {
      done(null, parseJsonKeepingNumbers(text));
    } catch (error) {
      // A RangeError is the parser running out of stack: the body's fault, never a 500.
      if (error instanceof RangeError) done(tooDeep(), undefined);
      else done(error instanceof SyntaxError ? Object.assign(error, { statusCode: 400 }) : (error as Error), undefined);
    }
  });
}
