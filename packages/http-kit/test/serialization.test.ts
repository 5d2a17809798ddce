import { Type } from '@sinclair/typebox';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpApp } from '../src/index.js';
import { nullableAsTypeList } from '../src/serialization.js';
import { quietApp } from './quiet-app.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const Answer = Type.Object(
  {
    at: Nullable(Type.String({ format: 'date-time' })),
    ref: Nullable(Type.String({ format: 'uuid' })),
    count: Type.Union([Type.Integer(), Type.Null()]),
    either: Type.Union([Type.String(), Type.Integer()]),
    nested: Type.Union([Type.Object({ a: Type.String() }), Type.Null()]),
  },
  { $id: 'SerializationAnswer' },
);

let app: HttpApp;
let base: string;
const answers: Record<string, unknown>[] = [
  { at: '2026-11-25T11:07:44.123Z', ref: '3f1c1d2e-0b8a-4c55-9a57-2a8e5b7a4d10', count: 3, either: 'x', nested: { a: 'b', extra: 1 } },
  { at: null, ref: null, count: null, either: 7, nested: null, dropped: 'not in the schema' },
];

beforeAll(async () => {
  app = await quietApp('serialization-test', { apiVersion: () => 'v2' });
  app.get<{ Params: { n: string } }>(
    '/answers/:n',
    { schema: { response: { 200: Answer } } },
    async (req) => answers[Number(req.params.n)],
  );
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(() => app.close());

describe('response serialization', () => {
  it('writes a scalar-or-null union as a type list, keeping its keywords; other unions untouched', () => {
    const copy = nullableAsTypeList(JSON.parse(JSON.stringify(Answer))) as { properties: Record<string, unknown> };
    expect(copy.properties.at).toEqual({ type: ['string', 'null'], format: 'date-time' });
    expect(copy.properties.count).toEqual({ type: ['integer', 'null'] });
    expect(copy.properties.either).toEqual(JSON.parse(JSON.stringify(Answer.properties.either)));
    expect(copy.properties.nested).toEqual(JSON.parse(JSON.stringify(Answer.properties.nested)));
  });

  it('answers values and nulls of nullable fields as JSON.stringify of the schema’s fields would', async () => {
    for (const [n, expected] of [
      [0, { at: '2026-11-25T11:07:44.123Z', ref: '3f1c1d2e-0b8a-4c55-9a57-2a8e5b7a4d10', count: 3, either: 'x', nested: { a: 'b' } }],
      [1, { at: null, ref: null, count: null, either: 7, nested: null }],
    ] as const) {
      const res = await request(`${base}/answers/${n}`);
      expect(res.statusCode).toBe(200);
      expect(await res.body.json()).toEqual(expected);
    }
  });
});
