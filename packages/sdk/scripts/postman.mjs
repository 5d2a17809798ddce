// The Postman collection of both APIs, generated from the committed OpenAPI documents
// (docs/api/openapi/{payments,workspace}.json) into docs/api/postman/holdfast.postman_collection.json.
// `node packages/sdk/scripts/postman.mjs` writes it; packages/sdk/test/postman.test.ts fails when the
// committed file is not what the documents give. Import it into Postman (or Bruno, which reads
// Postman v2.1 collections) and set the variables paymentsUrl, workspaceUrl, paymentsToken,
// workspaceToken (docs/api/postman/README.md).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const COLLECTION_PATH = join(root, 'docs', 'api', 'postman', 'holdfast.postman_collection.json');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const APIS = [
  { file: 'payments.json', name: 'Payments API', url: 'paymentsUrl', token: 'paymentsToken' },
  { file: 'workspace.json', name: 'Workspace API', url: 'workspaceUrl', token: 'workspaceToken' },
];

/** A body to start from: the schema's first example, else its required fields with placeholder values. */
function sample(schema, depth = 0) {
  if (!schema || depth > 4) return null;
  if (schema.examples?.length) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  const choice = schema.anyOf ?? schema.oneOf;
  if (choice?.length) return sample(choice[0], depth + 1);
  switch (schema.type) {
    case 'object': {
      const out = {};
      for (const name of schema.required ?? []) out[name] = sample(schema.properties?.[name], depth + 1);
      return out;
    }
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return false;
    case 'string':
      return schema.format === 'uuid'
        ? '00000000-0000-7000-8000-000000000000'
        : schema.format === 'date-time'
          ? '2026-01-01T00:00:00.000Z'
          : '';
    default:
      return null;
  }
}

function request(api, path, method, op) {
  const segments = path
    .replace(/^\//, '')
    .split('/')
    .map((s) => s.replace(/^\{(.+)\}$/, ':$1'));
  const params = op.parameters ?? [];
  const security = (op.security ?? []).flatMap((s) => Object.keys(s));
  const body = op.requestBody?.content?.['application/json'];
  const form = op.requestBody?.content?.['application/x-www-form-urlencoded'];
  const req = {
    method: method.toUpperCase(),
    header: [
      ...(body ? [{ key: 'Content-Type', value: 'application/json' }] : []),
      ...params
        .filter((p) => p.in === 'header' && p.required)
        .map((p) => ({ key: p.name, value: p.name.toLowerCase() === 'idempotency-key' ? '{{$guid}}' : '' })),
    ],
    url: {
      raw: `{{${api.url}}}${path.replace(/\{(.+?)\}/g, ':$1')}`,
      host: [`{{${api.url}}}`],
      path: segments,
      ...(params.some((p) => p.in === 'query')
        ? {
            query: params
              .filter((p) => p.in === 'query')
              .map((p) => ({ key: p.name, value: '', disabled: !p.required, ...(p.description ? { description: p.description } : {}) })),
          }
        : {}),
      ...(params.some((p) => p.in === 'path')
        ? { variable: params.filter((p) => p.in === 'path').map((p) => ({ key: p.name, value: '' })) }
        : {}),
    },
    description: [op.summary, op.description].filter(Boolean).join('\n\n'),
    auth: security.includes('bearer')
      ? { type: 'bearer', bearer: [{ key: 'token', value: `{{${api.token}}}`, type: 'string' }] }
      : security.includes('apiKey')
        ? {
            type: 'apikey',
            apikey: [
              { key: 'key', value: 'X-API-Key' },
              { key: 'value', value: '{{paymentsApiKey}}' },
              { key: 'in', value: 'header' },
            ],
          }
        : { type: 'noauth' },
  };
  if (body) req.body = { mode: 'raw', raw: JSON.stringify(sample(body.schema) ?? {}, null, 2), options: { raw: { language: 'json' } } };
  else if (form)
    req.body = { mode: 'urlencoded', urlencoded: Object.keys(form.schema?.properties ?? {}).map((key) => ({ key, value: '' })) };
  return { name: op.summary ?? op.operationId, request: req, ...(op.operationId ? { id: op.operationId } : {}) };
}

/** The collection (Postman v2.1) as a string, from the committed OpenAPI documents. */
export function collection() {
  const folders = APIS.map((api) => {
    const doc = JSON.parse(readFileSync(join(root, 'docs', 'api', 'openapi', api.file), 'utf8'));
    const byTag = new Map();
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        const op = ops[method];
        if (!op) continue;
        const tag = op.tags?.[0] ?? 'other';
        if (!byTag.has(tag)) byTag.set(tag, []);
        byTag.get(tag).push(request(api, path, method, op));
      }
    }
    const descriptions = new Map((doc.tags ?? []).map((t) => [t.name, t.description]));
    return {
      name: `${api.name} ${doc.info.version}`,
      description: doc.info.description ?? '',
      item: [...byTag].map(([tag, item]) => ({
        name: tag,
        ...(descriptions.get(tag) ? { description: descriptions.get(tag) } : {}),
        item,
      })),
    };
  });
  return `${JSON.stringify(
    {
      info: {
        name: 'Holdfast',
        description: 'Generated from docs/api/openapi/*.json by packages/sdk/scripts/postman.mjs; do not edit by hand.',
        schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
      },
      variable: [
        { key: 'paymentsUrl', value: 'http://127.0.0.1:3001' },
        { key: 'workspaceUrl', value: 'http://127.0.0.1:3002' },
        { key: 'paymentsToken', value: '' },
        { key: 'workspaceToken', value: '' },
        { key: 'paymentsApiKey', value: '' },
      ],
      item: folders,
    },
    null,
    2,
  )}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(COLLECTION_PATH, collection());
  console.log(`wrote ${COLLECTION_PATH}`);
}
