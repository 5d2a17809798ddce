import { ERROR_CODES } from '@holdfast/contracts';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { request } from 'undici';
import type { Json } from './harness.js';

/**
 * Requests generated from an OpenAPI 3.1 document (issue 14): for each operation, values drawn
 * from its declared schemas (the valid path), and mutations of them (wrong types, text PostgreSQL
 * cannot store, huge or non-finite numbers, oversized strings and arrays, unknown fields, broken
 * JSON, wrong media types, other tenants' ids), and hostile requests of every kind (issue 28 item
 * 8): JSON nested past the parser's limit and free-form values nested past theirs, odd and
 * oversized headers, odd query strings, multipart bodies well- and ill-formed. `checkAnswer` says
 * what every answer must obey.
 */

export type Tenant = 'A' | 'B' | 'operator' | 'none';

/** A credential for one security scheme, and whose it is. */
export interface Credential {
  tenant: Tenant;
  headers: Record<string, string>;
}

export interface Operation {
  api: 'payments' | 'workspace';
  method: string;
  path: string;
  operation: Json;
}

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | undefined;
  /** The tenant whose credential is sent. */
  tenant: Tenant;
  /** Path parameter values that belong to the other tenant. */
  foreignIds: string[];
  label: string;
  /** Which hostile kinds the request carries (`deep-json`, `headers`, `query`, `multipart`, …). */
  hostile: string[];
}

export interface IdPool {
  A: string[];
  B: string[];
}

const SCHEME_OF_REF = '#/components/schemas/';

/** Operations of a document, in a stable order; DELETEs and revocations last (they shrink the world). */
export function operationsOf(api: Operation['api'], doc: Json): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, operation] of Object.entries(methods)) ops.push({ api, method: method.toUpperCase(), path, operation });
  }
  const destructive = (o: Operation) => o.method === 'DELETE' || /logout|revoke|rotate|deactivate|complete-rotation/.test(o.path);
  return ops.sort((a, b) => Number(destructive(a)) - Number(destructive(b)));
}

function resolve(doc: Json, schema: Json): Json {
  let current = schema;
  for (let i = 0; i < 20 && current && typeof current.$ref === 'string'; i += 1) {
    const ref = current.$ref as string;
    current = ref.startsWith(SCHEME_OF_REF) ? doc.components?.schemas?.[decodeURIComponent(ref.slice(SCHEME_OF_REF.length))] : {};
  }
  return current ?? {};
}

const ODD_STRINGS = [
  '',
  'a\u0000b',
  '\ud800',
  'x\udc00y',
  '%00',
  '../../etc/passwd',
  "' or 1=1 --",
  '<script>alert(1)</script>',
  '😀'.repeat(50),
  'ｆｕｌｌ',
  ' ',
  'null',
  '-1',
  '1e309',
  '9'.repeat(40),
];
const ODD_NUMBERS = [0, -1, -0.5, 1e20, -1e20, 2 ** 31, 2 ** 53 + 2, 1.5, Number.MAX_SAFE_INTEGER];

/** `{"n": {"n": … {"end": true}}}`, `levels` objects deep. */
export function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { end: true };
  for (let i = 1; i < levels; i++) value = { n: value };
  return value;
}

/** Any JSON value at all: what a mutation puts in place of a declared one. */
const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, [], {}, ...ODD_STRINGS, ...ODD_NUMBERS),
  // Within the body's 64 levels, past a free-form value's 8: a metadata that would break a reader.
  fc.constant(nested(60)),
  fc.constant([[[[[[[[[[[[1]]]]]]]]]]]]),
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.constant('x'.repeat(20_000)),
  fc.constant(Array.from({ length: 500 }, () => 'z')),
);

function stringFor(schema: Json, ids: fc.Arbitrary<string>): fc.Arbitrary<string> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as string[]));
  if (typeof schema.const === 'string') return fc.constant(schema.const);
  const maxLength = Math.min(typeof schema.maxLength === 'number' ? schema.maxLength : 40, 60);
  const minLength = Math.min(typeof schema.minLength === 'number' ? schema.minLength : 0, maxLength);
  switch (schema.format) {
    case 'uuid':
      return fc.oneof(ids, fc.uuid());
    case 'email':
      return fc.emailAddress();
    case 'date-time':
      return fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'date':
      return fc
        .date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10));
    case 'uri':
      return fc.webUrl();
    default:
      break;
  }
  if (typeof schema.pattern === 'string') {
    try {
      // Not filtered by length (a filter that rarely passes never ends): the server judges it.
      return fc.stringMatching(new RegExp(schema.pattern), { size: 'xsmall' });
    } catch {
      // A pattern JavaScript cannot build: plain strings then.
    }
  }
  return fc.string({ minLength, maxLength });
}

function numberFor(schema: Json): fc.Arbitrary<number> {
  const min = typeof schema.minimum === 'number' ? schema.minimum : -1_000_000;
  const max = typeof schema.maximum === 'number' ? schema.maximum : 1_000_000;
  const lo = Math.max(min, -1_000_000);
  const hi = Math.max(lo, Math.min(max, 1_000_000));
  return schema.type === 'integer'
    ? fc.integer({ min: Math.ceil(lo), max: Math.floor(hi) })
    : fc.double({ min: lo, max: hi, noNaN: true, noDefaultInfinity: true });
}

/** Values of a schema (depth-bounded), with the other tenants' and this tenant's ids for uuids. */
export function valueFor(doc: Json, raw: Json, ids: fc.Arbitrary<string>, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(doc, raw);
  if (depth > 6) return fc.constant(null);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const branches = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (Array.isArray(branches) && branches.length > 0) return fc.oneof(...branches.map((b) => valueFor(doc, b, ids, depth + 1)));
  if (Array.isArray(schema.allOf)) {
    const merged = Object.assign({}, ...(schema.allOf as Json[]).map((s) => resolve(doc, s)));
    return valueFor(doc, merged, ids, depth + 1);
  }
  const type = Array.isArray(schema.type) ? (schema.type as string[])[0] : schema.type;
  switch (type) {
    case 'string':
      return stringFor(schema, ids);
    case 'integer':
    case 'number':
      return numberFor(schema);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = Math.min(schema.minItems ?? 0, 3);
      const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? 3, 3));
      return fc.array(valueFor(doc, schema.items ?? {}, ids, depth + 1), { minLength, maxLength });
    }
    case 'object':
    case undefined: {
      const properties = (schema.properties ?? {}) as Record<string, Json>;
      if (Object.keys(properties).length === 0) {
        return type === 'object' ? fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }) : anyJson;
      }
      const required = new Set((schema.required ?? []) as string[]);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, property] of Object.entries(properties)) model[key] = valueFor(doc, property, ids, depth + 1);
      return fc.record(model, { requiredKeys: [...required].filter((k) => k in model) });
    }
    default:
      return anyJson;
  }
}

/** One field of a generated object replaced by anything, or an unknown field added. */
function mutate(value: unknown): fc.Arbitrary<unknown> {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value);
    return fc.oneof(
      fc.tuple(keys.length > 0 ? fc.constantFrom(...keys) : fc.constant('unknownField'), anyJson).map(([key, bad]) => ({
        ...(value as object),
        [key]: bad,
      })),
      anyJson.map((bad) => ({ ...(value as object), 'fuzz\u0000field': bad })),
      fc.constant(Array.from({ length: 2000 }, (_, i) => ({ [`k${i}`]: i }))),
    );
  }
  return anyJson;
}

/** Bodies past the parser's depth limit (64): 2,500 levels used to overflow its stack (500). */
const DEEP_JSON = [
  { text: `${'['.repeat(3000)}${']'.repeat(3000)}`, type: 'application/json' },
  { text: `${'{"a":'.repeat(2600)}1${'}'.repeat(2600)}`, type: 'application/json' },
  { text: `{"metadata":${'['.repeat(65)}${']'.repeat(65)}}`, type: 'application/json' },
  { text: `${'['.repeat(100_000)}`, type: 'application/json' },
];

const BOUNDARY = 'holdfastfuzz';
const part = (headers: string, content: string) => `--${BOUNDARY}\r\n${headers}\r\n\r\n${content}\r\n`;
/** Multipart bodies: a small PNG-looking file, text fields, a truncated one, many parts, no boundary. */
const MULTIPART = [
  {
    text: `${part('Content-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png', '\x89PNG\r\n\x1a\nnot really')}--${BOUNDARY}--\r\n`,
    type: `multipart/form-data; boundary=${BOUNDARY}`,
  },
  {
    text: `${part('Content-Disposition: form-data; name="name"', 'x')}${part('Content-Disposition: form-data; name="metadata"', '{"a":1}')}--${BOUNDARY}--\r\n`,
    type: `multipart/form-data; boundary=${BOUNDARY}`,
  },
  {
    text: `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="x"\r\n\r\nno end`,
    type: `multipart/form-data; boundary=${BOUNDARY}`,
  },
  {
    text: `${Array.from({ length: 1500 }, (_, i) => part(`Content-Disposition: form-data; name="f${i}"`, String(i))).join('')}--${BOUNDARY}--\r\n`,
    type: `multipart/form-data; boundary=${BOUNDARY}`,
  },
  { text: 'a=b', type: 'multipart/form-data' },
  {
    text: part('Content-Disposition: form-data; name="file"; filename="../../etc/passwd"\r\nContent-Type: image/png', 'x'),
    type: `multipart/form-data; boundary=${BOUNDARY}`,
  },
];

/**
 * Headers a client may send, odd or oversized (undici refuses the hop-by-hop ones itself): they
 * replace the generated ones, credentials included.
 */
const ODD_HEADERS: Record<string, string>[] = [
  { 'x-request-id': '../../etc/passwd' },
  { 'x-request-id': 'r'.repeat(600) },
  { 'idempotency-key': ' ' },
  { 'idempotency-key': 'k'.repeat(400) },
  { accept: '*/*;q=abc, text/html;level=;q=2' },
  { accept: 'application/xml' },
  { 'accept-encoding': 'gzip;q=2, br, zstd, deflate, identity;q=0' },
  { 'content-encoding': 'gzip' },
  { 'content-type': 'application/json; charset=utf-16' },
  { 'content-type': 'application/json; charset=latin1' },
  { 'content-type': 'application/x-www-form-urlencoded' },
  { 'content-type': 'text/plain' },
  { 'content-type': ';;;' },
  { 'x-forwarded-for': 'not-an-ip, ::1, 999.1.1.1, ' },
  { 'x-forwarded-proto': 'gopher' },
  { 'x-forwarded-host': 'evil.example' },
  { host: 'evil.example' },
  { 'last-event-id': '-1' },
  { 'last-event-id': '99999999999999999999999' },
  { authorization: 'Bearer' },
  { authorization: 'Basic !!!' },
  { authorization: 'Basic Og==' },
  { authorization: `Bearer ${'a'.repeat(8000)}` },
  { authorization: 'Negotiate abc' },
  { 'x-api-key': `hf_test_${'a'.repeat(300)}` },
  { 'x-api-key': '' },
  { 'x-internal-api-key': 'wrong' },
  { cookie: 'a=b; '.repeat(300) },
  { origin: 'null' },
  { 'if-none-match': '*' },
  { range: 'bytes=0-1,5-' },
  { 'x-http-method-override': 'DELETE' },
  { 'x-fuzz': '\u00ff\u00fe latin1 bytes' },
];

/** Query strings appended to the generated one: unknown, repeated, bracketed, broken, huge. */
const ODD_QUERIES = [
  'unknownParam=1',
  'page=1&page=2',
  'limit=-1&limit=abc',
  'a[b][c][d][e][f][g]=1',
  `deep${'[x]'.repeat(500)}=1`,
  '__proto__=x&constructor[prototype][x]=1',
  '&&&==&=',
  'q=%ZZ',
  'q=%00',
  'q=%F0%9F',
  `${'k=v&'.repeat(1000)}end=1`,
  `q=${'x'.repeat(6000)}`,
  'page=1e309&limit=1e309',
  'page=0x10',
  'status=completed&status=pending&status=nope',
];

function parametersOf(doc: Json, operation: Json, where: 'path' | 'query'): Json[] {
  return ((operation.parameters ?? []) as Json[]).map((p) => (p.$ref ? resolve(doc, p) : p)).filter((p) => p.in === where);
}

/**
 * Requests for one operation: the credentials its security allows (and none, and the other
 * tenant's), path ids from both tenants and random ones, a query and body from its schemas,
 * each mutated or not.
 */
export function requestsFor(
  base: string,
  doc: Json,
  op: Operation,
  credentials: (scheme: string) => Credential[],
  ids: IdPool,
): fc.Arbitrary<FuzzRequest> {
  const schemes = ((op.operation.security ?? []) as Json[]).flatMap((s) => Object.keys(s));
  const offered = schemes.flatMap((scheme) => credentials(scheme));
  const anonymous: Credential = { tenant: 'none', headers: {} };
  const credential = fc.constantFrom<Credential>(...offered, anonymous);
  const idArb = fc.oneof(fc.constantFrom(...ids.A), fc.constantFrom(...ids.B), fc.uuid());
  const pathParams = parametersOf(doc, op.operation, 'path');
  const pathValues = fc.tuple(
    ...pathParams.map((p) =>
      fc.oneof(
        { weight: 6, arbitrary: idArb },
        { weight: 2, arbitrary: valueFor(doc, p.schema ?? {}, idArb).map(String) },
        { weight: 1, arbitrary: fc.constantFrom(...ODD_STRINGS, 'a'.repeat(101), '%ZZ') },
      ),
    ),
  );
  const queryParams = parametersOf(doc, op.operation, 'query');
  const queryModel: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of queryParams) {
    queryModel[p.name] = fc.oneof(
      { weight: 5, arbitrary: valueFor(doc, p.schema ?? {}, idArb) },
      { weight: 1, arbitrary: fc.constantFrom<unknown>(...ODD_STRINGS, '1e309', '99999999999999999999', '-5', 'true') },
    );
  }
  const query = fc.record(queryModel, { requiredKeys: [] });
  const json = op.operation.requestBody?.content?.['application/json']?.schema;
  const body: fc.Arbitrary<{ text?: string; type?: string }> = json
    ? valueFor(doc, json, idArb).chain((valid) =>
        fc.oneof(
          { weight: 4, arbitrary: fc.constant({ text: JSON.stringify(valid), type: 'application/json' }) },
          { weight: 4, arbitrary: mutate(valid).map((bad) => ({ text: JSON.stringify(bad), type: 'application/json' })) },
          {
            weight: 1,
            arbitrary: fc.constantFrom(
              { text: '{"a":', type: 'application/json' },
              { text: '', type: 'application/json' },
              { text: '{"amount":1e309}', type: 'application/json' },
              { text: 'a=b', type: 'text/csv' },
              { text: `{"__proto__":{"x":1}}`, type: 'application/json' },
              { text: JSON.stringify({ x: 'y'.repeat(1024 * 1024) }), type: 'application/json' },
            ),
          },
          { weight: 1, arbitrary: fc.constantFrom(...DEEP_JSON).map((b) => ({ ...b, hostile: 'deep-json' })) },
          { weight: 1, arbitrary: fc.constantFrom(...MULTIPART).map((b) => ({ ...b, hostile: 'multipart' })) },
        ),
      )
    : // An operation that takes no JSON body still meets one, and multipart (the avatar uploads take it).
      fc.oneof(
        { weight: 6, arbitrary: fc.constant({}) },
        { weight: 1, arbitrary: fc.constantFrom(...DEEP_JSON).map((b) => ({ ...b, hostile: 'deep-json' })) },
        { weight: 2, arbitrary: fc.constantFrom(...MULTIPART).map((b) => ({ ...b, hostile: 'multipart' })) },
      );
  const oddHeaders = fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(...ODD_HEADERS) });
  const oddQuery = fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(...ODD_QUERIES) });
  return fc
    .record({
      credential,
      pathValues,
      query,
      body: body as fc.Arbitrary<{ text?: string; type?: string; hostile?: string }>,
      oddHeaders,
      oddQuery,
    })
    .map(({ credential, pathValues, query, body, oddHeaders, oddQuery }) => {
      const hostile: string[] = [];
      let path = op.path;
      const foreign: string[] = [];
      pathParams.forEach((p, i) => {
        // An empty segment would address another operation (`/webhooks/` is the list): a blank instead.
        const value = pathValues[i] || ' ';
        const other = credential.tenant === 'A' ? ids.B : credential.tenant === 'B' ? ids.A : [];
        if (other.includes(value)) foreign.push(value);
        path = path.replace(`{${p.name}}`, encodePathValue(value));
      });
      const search = new URLSearchParams();
      for (const [key, value] of Object.entries(query)) {
        if (value === undefined) continue;
        search.set(key, typeof value === 'string' ? value : JSON.stringify(value));
      }
      let qs = search.toString();
      if (oddQuery !== undefined) {
        qs = qs ? `${qs}&${oddQuery}` : oddQuery;
        hostile.push('query');
      }
      const headers: Record<string, string> = { ...credential.headers };
      if (body.type) headers['content-type'] = body.type;
      if (body.hostile) hostile.push(body.hostile);
      if (oddHeaders !== undefined) {
        Object.assign(headers, oddHeaders);
        hostile.push('headers');
      }
      // A replaced credential is nobody's: a 2xx it gets is not the tenant's.
      const tenant = oddHeaders && ('authorization' in oddHeaders || 'x-api-key' in oddHeaders) ? 'none' : credential.tenant;
      return {
        method: op.method,
        url: `${base}${path}${qs ? `?${qs}` : ''}`,
        headers,
        body: body.text,
        tenant,
        foreignIds: tenant === 'none' ? [] : foreign,
        label: `${op.api} ${op.method} ${op.path}`,
        hostile,
      };
    });
}

/** Percent-encodes a path value; `%ZZ` stays broken on purpose, a lone surrogate goes as raw bytes. */
function encodePathValue(value: string): string {
  if (value === '%ZZ') return value;
  try {
    return encodeURIComponent(value);
  } catch {
    return [...Buffer.from(value, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
  }
}

export interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/** Sends one request; an event stream is read up to its headers. */
export async function send(req: FuzzRequest): Promise<Answer> {
  const res = await request(req.url, {
    method: req.method as 'GET',
    headers: req.headers,
    body: req.method === 'GET' || req.method === 'HEAD' ? undefined : req.body,
    signal: AbortSignal.timeout(15_000),
  });
  const contentType = String(res.headers['content-type'] ?? '');
  if (contentType.startsWith('text/event-stream')) {
    res.body.destroy();
    return { status: res.statusCode, contentType, text: '' };
  }
  return { status: res.statusCode, contentType, text: await res.body.text() };
}

/** What every answer obeys; returns the broken rules (empty when the answer is clean). */
export function createChecker(docs: Record<Operation['api'], Json>, secrets: () => string[]) {
  const validators = new Map<string, (value: unknown) => boolean>();
  // Component refs (`#/components/schemas/X`) become `#/$defs/X` of each compiled schema.
  const local = (value: unknown) =>
    JSON.parse(JSON.stringify(value, (key, v) => (key === '$id' ? undefined : v)).replaceAll('"#/components/schemas/', '"#/$defs/'));
  const defsOf = (doc: Json) => local(doc.components?.schemas ?? {});
  const defs = { payments: defsOf(docs.payments), workspace: defsOf(docs.workspace) };
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true, logger: false });
  const withFormats = addFormats as unknown as { default?: (ajv: Ajv2020) => void } & ((ajv: Ajv2020) => void);
  (withFormats.default ?? withFormats)(ajv);
  const codes = new Set<string>(ERROR_CODES);

  return (op: Operation, req: FuzzRequest, answer: Answer): string[] => {
    const problems: string[] = [];
    const declared = op.operation.responses ?? {};
    const status = String(answer.status);
    if (answer.status >= 500 && !declared[status]) problems.push(`answered ${answer.status}, a server error it does not declare`);
    if (answer.status === 500) problems.push('answered 500');
    if (!declared[status] && !declared.default) problems.push(`answered ${status}, not declared in the OpenAPI document`);
    let body: Json;
    if (answer.contentType.includes('json') && answer.text) {
      try {
        body = JSON.parse(answer.text);
      } catch {
        problems.push('answered JSON that does not parse');
      }
    }
    const schema = declared[status]?.content?.['application/json']?.schema;
    const envelopeExpected = answer.status >= 400 && (!schema || JSON.stringify(schema).includes('ErrorEnvelope'));
    if (envelopeExpected) {
      const ok =
        body?.success === false &&
        body.data === null &&
        codes.has(body.error?.code) &&
        body.error?.statusCode === answer.status &&
        typeof body.error?.message === 'string' &&
        typeof body.meta?.requestId === 'string';
      if (!ok) problems.push(`error outside the envelope: ${answer.text.slice(0, 300)}`);
      if (answer.text.length > 16_384) problems.push(`error answer of ${answer.text.length} characters`);
    } else if (schema && body !== undefined) {
      // A 2xx, or an answer the operation declares with a shape of its own (readiness 503).
      const key = `${op.api} ${op.method} ${op.path} ${status}`;
      let validate = validators.get(key);
      if (!validate) {
        validate = ajv.compile({ ...local(schema), $defs: defs[op.api] }) as (value: unknown) => boolean;
        validators.set(key, validate);
      }
      if (!validate(body)) {
        const errors = (validate as unknown as { errors?: unknown[] }).errors;
        problems.push(`${status} body breaks its declared schema: ${JSON.stringify(errors).slice(0, 500)}`);
      }
    }
    if (answer.status >= 200 && answer.status < 300) {
      if (req.foreignIds.length > 0) problems.push(`2xx with the other tenant's id(s) ${req.foreignIds.join(', ')}`);
    }
    for (const secret of secrets()) if (answer.text.includes(secret)) problems.push('a credential is echoed in the answer');
    return problems;
  };
}
