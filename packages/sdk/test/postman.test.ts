import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// docs/api/postman/holdfast.postman_collection.json is generated from the committed OpenAPI
// documents (packages/sdk/scripts/postman.mjs): stale is a failure, with the command that fixes it.

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const script = join(root, 'packages', 'sdk', 'scripts', 'postman.mjs');

interface Item {
  id?: string;
  name: string;
  item?: Item[];
  request?: { method: string; url: { raw: string }; auth: { type: string } };
}

describe('the Postman collection', () => {
  it('is what the OpenAPI documents give (regenerate: node packages/sdk/scripts/postman.mjs)', async () => {
    const { collection, COLLECTION_PATH } = (await import(script)) as { collection: () => string; COLLECTION_PATH: string };
    expect(readFileSync(COLLECTION_PATH, 'utf8') === collection(), 'stale: run node packages/sdk/scripts/postman.mjs').toBe(true);
  });

  it('has every operation of both documents once, with its method, path and credential', () => {
    const saved = JSON.parse(readFileSync(join(root, 'docs', 'api', 'postman', 'holdfast.postman_collection.json'), 'utf8')) as {
      item: Item[];
    };
    const leaves = (items: Item[]): Item[] => items.flatMap((i) => (i.item ? leaves(i.item) : [i]));
    for (const [index, file, variable] of [
      [0, 'payments.json', 'paymentsUrl'],
      [1, 'workspace.json', 'workspaceUrl'],
    ] as const) {
      const requests = leaves(saved.item[index]?.item ?? []);
      const doc = JSON.parse(readFileSync(join(root, 'docs', 'api', 'openapi', file), 'utf8')) as {
        paths: Record<string, Record<string, { operationId: string; security?: Record<string, unknown>[] }>>;
      };
      for (const [path, ops] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(ops)) {
          const found = requests.filter((r) => r.id === op.operationId);
          expect(found, op.operationId).toHaveLength(1);
          expect(found[0]?.request?.method).toBe(method.toUpperCase());
          expect(found[0]?.request?.url.raw).toBe(`{{${variable}}}${path.replace(/\{(.+?)\}/g, ':$1')}`);
          if (op.security?.some((s) => 'bearer' in s)) expect(found[0]?.request?.auth.type).toBe('bearer');
        }
      }
    }
    expect(leaves(saved.item).find((r) => r.id === 'advanceTransactionHold')?.request?.url.raw).toBe(
      '{{paymentsUrl}}/api/v2/test_helpers/transactions/:id/advance_hold',
    );
  });
});
