import { type FieldError, PAGE_MAX } from '@holdfast/contracts';

/**
 * Rules every request input obeys, whatever its route declares (issue 14): what PostgreSQL cannot
 * store never reaches it, integers stay exact, and `page` has one maximum.
 */

/** Integers beyond this lose precision in JavaScript (and would overflow a `bigint` as offsets). */
const INTEGER_BOUND = Number.MAX_SAFE_INTEGER;
export const UNSTORABLE_TEXT_REASON = 'must not contain NUL characters (\\u0000) or unpaired surrogates';
export const NON_FINITE_REASON = 'must be a finite number';

type JsonSchema = Record<string, unknown>;

/**
 * A copy of a request schema (body, querystring, params, headers) with the global bounds: every
 * integer without its own bound gets ±2^53-1, a `page` query parameter at most `PAGE_MAX`. The copy
 * is what Ajv compiles and the OpenAPI description shows; the shared contract schema is untouched.
 */
export function boundRequestSchema(schema: unknown, part: 'body' | 'querystring' | 'params' | 'headers'): unknown {
  if (!schema || typeof schema !== 'object') return schema;
  const copy = cloneSchema(schema as JsonSchema);
  boundIntegers(copy, new Set());
  if (part === 'body') boundFreeForm(copy, new Set());
  if (part === 'querystring') {
    const page = (copy.properties as Record<string, JsonSchema> | undefined)?.page;
    if (page && (page.type === 'integer' || page.type === 'number')) {
      page.maximum = Math.min(typeof page.maximum === 'number' ? page.maximum : PAGE_MAX, PAGE_MAX);
    }
  }
  return copy;
}

/** Deep copy of plain JSON-schema data (TypeBox's symbol keys are dropped; Ajv does not read them). */
function cloneSchema(value: JsonSchema): JsonSchema {
  return JSON.parse(JSON.stringify(value)) as JsonSchema;
}

function boundIntegers(node: unknown, seen: Set<unknown>): void {
  if (!node || typeof node !== 'object' || seen.has(node)) return;
  seen.add(node);
  if (Array.isArray(node)) {
    for (const item of node) boundIntegers(item, seen);
    return;
  }
  const schema = node as JsonSchema;
  if (schema.type === 'integer') {
    if (typeof schema.maximum !== 'number' && typeof schema.exclusiveMaximum !== 'number') schema.maximum = INTEGER_BOUND;
    if (typeof schema.minimum !== 'number' && typeof schema.exclusiveMinimum !== 'number') schema.minimum = -INTEGER_BOUND;
  }
  for (const [key, child] of Object.entries(schema)) {
    // `const`, `default`, `enum`, `examples` hold data, not schemas.
    if (key === 'const' || key === 'default' || key === 'enum' || key === 'examples') continue;
    boundIntegers(child, seen);
  }
}

/**
 * Free-form values of a request body (`metadata`, `config`, `settings`: a record of anything, or a
 * bare "any value") nest at most this many levels of objects and arrays, the free-form object
 * itself counting as one, and take at most `FREE_FORM_MAX_BYTES` as JSON. What a client stores is
 * given back in answers, webhooks and events, wrapped a few levels deeper: unbounded, a stored
 * value could exceed `MAX_JSON_DEPTH` there and break every reader of it (docs/errors.md).
 */
export const FREE_FORM_MAX_DEPTH = 8;
export const FREE_FORM_MAX_BYTES = 64 * 1024;
/** The Ajv keyword `boundFreeForm` puts on free-form schemas (registered in app.ts). */
export const FREE_FORM_KEYWORD = 'x-free-form';

const isEmptySchema = (node: unknown): boolean =>
  !!node && typeof node === 'object' && !Array.isArray(node) && Object.keys(node).length === 0;

/** A record whose values may be anything (TypeBox `Record(String, Unknown)`), or any value at all. */
function isFreeForm(schema: JsonSchema): boolean {
  if (isEmptySchema(schema)) return true;
  if (schema.type !== 'object' || schema.properties !== undefined) return false;
  const patterns = schema.patternProperties as Record<string, unknown> | undefined;
  if (patterns && Object.values(patterns).every(isEmptySchema)) return true;
  return schema.additionalProperties === true || isEmptySchema(schema.additionalProperties);
}

function boundFreeForm(node: unknown, seen: Set<unknown>): void {
  if (!node || typeof node !== 'object' || seen.has(node)) return;
  seen.add(node);
  if (Array.isArray(node)) {
    for (const item of node) boundFreeForm(item, seen);
    return;
  }
  const schema = node as JsonSchema;
  for (const [key, child] of Object.entries(schema)) {
    if (key === 'const' || key === 'default' || key === 'enum' || key === 'examples') continue;
    // A free-form option of a union (`Nullable(Record(String, Unknown))`) is bounded like a bare one.
    if ((key === 'anyOf' || key === 'oneOf' || key === 'allOf') && Array.isArray(child)) {
      child.forEach((option, i) => {
        if (option && typeof option === 'object' && isFreeForm(option as JsonSchema)) child[i] = markFreeForm(option as JsonSchema);
        else boundFreeForm(option, seen);
      });
      continue;
    }
    if (!child || typeof child !== 'object' || Array.isArray(child)) {
      boundFreeForm(child, seen);
      continue;
    }
    // Schemas that name other schemas by key: each of their values is a schema.
    if (key === 'properties' || key === 'patternProperties' || key === '$defs' || key === 'definitions') {
      for (const [name, sub] of Object.entries(child as JsonSchema)) {
        if (sub && typeof sub === 'object' && isFreeForm(sub as JsonSchema)) {
          (child as JsonSchema)[name] = markFreeForm(sub as JsonSchema);
        } else boundFreeForm(sub, seen);
      }
      continue;
    }
    if ((key === 'items' || key === 'additionalProperties') && isFreeForm(child as JsonSchema) && !isFreeForm(schema)) {
      schema[key] = markFreeForm(child as JsonSchema);
      continue;
    }
    boundFreeForm(child, seen);
  }
}

function markFreeForm(schema: JsonSchema): JsonSchema {
  return { ...schema, [FREE_FORM_KEYWORD]: { maxDepth: FREE_FORM_MAX_DEPTH, maxBytes: FREE_FORM_MAX_BYTES } };
}

/**
 * Why a free-form value is refused (too deep, too large), or undefined. Iterative: the body is
 * already within `MAX_JSON_DEPTH`, but the walk needs no stack either way.
 */
export function freeFormProblem(value: unknown, bounds: { maxDepth: number; maxBytes: number }): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const stack: { value: object; depth: number }[] = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (depth > bounds.maxDepth) return `must nest objects and arrays at most ${bounds.maxDepth} levels deep`;
    for (const child of Object.values(current)) {
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: depth + 1 });
    }
  }
  const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
  if (bytes > bounds.maxBytes) return `must be at most ${bounds.maxBytes} bytes as JSON (got ${bytes})`;
  return undefined;
}

/** The Ajv keyword: free-form values within their bounds, refused naming the field. */
export const freeFormKeyword = {
  keyword: FREE_FORM_KEYWORD,
  schemaType: 'object' as const,
  errors: true,
  validate: function validateFreeForm(bounds: { maxDepth: number; maxBytes: number }, data: unknown): boolean {
    const problem = freeFormProblem(data, bounds);
    if (problem === undefined) return true;
    (validateFreeForm as { errors?: unknown[] }).errors = [{ keyword: FREE_FORM_KEYWORD, message: problem, params: bounds }];
    return false;
  },
};

/** True when PostgreSQL can store the text (`text`, `jsonb`): no NUL, no unpaired UTF-16 surrogate. */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && text.isWellFormed();
}

/**
 * True when every string (value or object key) of a validated input is storable text and every
 * number finite: what `unstorableFields` would find nothing in, without building a path per value
 * (nearly every request; the field errors are worked out only when this says no). Iterative, as
 * `unstorableFields`.
 */
export function allStorable(input: unknown): boolean {
  if (input === undefined || input === null) return true;
  const stack: unknown[] = [input];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      if (!isStorableText(value)) return false;
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) return false;
    } else if (value && typeof value === 'object') {
      if (Array.isArray(value)) {
        for (const item of value) stack.push(item);
      } else {
        for (const key in value) {
          if (!Object.hasOwn(value, key)) continue;
          if (!isStorableText(key)) return false;
          stack.push((value as Record<string, unknown>)[key]);
        }
      }
    }
  }
  return true;
}

/**
 * Every value of a validated input that PostgreSQL cannot store: strings (values and object keys)
 * with NUL or an unpaired surrogate, and numbers that are not finite (`1e309` parses as Infinity,
 * in JSON and in a converted query string alike). Field errors with dotted paths; stops after
 * `max`. Walks iteratively: a deeply nested body cannot exhaust the stack.
 */
export function unstorableFields(input: unknown, max: number): FieldError[] {
  const errors: FieldError[] = [];
  const stack: { value: unknown; path: string[] }[] = [{ value: input, path: [] }];
  while (stack.length > 0 && errors.length < max) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      if (!isStorableText(value)) errors.push({ field: path.join('.') || 'body', reason: UNSTORABLE_TEXT_REASON });
      continue;
    }
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) errors.push({ field: path.join('.') || 'body', reason: NON_FINITE_REASON });
      continue;
    }
    if (!value || typeof value !== 'object') continue;
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    // Pushed in reverse, so fields are reported in document order.
    for (let i = entries.length - 1; i >= 0; i -= 1) {
      const [key, child] = entries[i]!;
      const childPath = [...path, isStorableText(key) ? key : key.toWellFormed().replaceAll('\u0000', '\uFFFD')];
      if (!Array.isArray(value) && !isStorableText(key)) {
        stack.push({ value: '\u0000', path: childPath });
        continue;
      }
      stack.push({ value: child, path: childPath });
    }
  }
  return errors;
}
