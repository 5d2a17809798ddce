import { readFile } from 'node:fs/promises';
import { PAYMENTS_V2_OPERATIONS, SCOPE_DESCRIPTIONS, SCOPES, v2SuccessorPath } from '@holdfast/contracts';
import { describe, expect, it } from 'vitest';
import { v2OperationTable } from '../../src/http/surface.js';
import { normalizedTable } from '../support/markdown.js';

const doc = (name: string) => readFile(new URL(`../../../../docs/api/${name}`, import.meta.url), 'utf8');

describe('the v2 operation list', () => {
  it("has the 38 operations (the spec's 36 and the relayer's two), each once", () => {
    expect(PAYMENTS_V2_OPERATIONS).toHaveLength(38);
    expect(new Set(PAYMENTS_V2_OPERATIONS.map((o) => `${o.method} ${o.path}`)).size).toBe(38);
    for (const o of PAYMENTS_V2_OPERATIONS) {
      for (const v1 of o.v1) expect(v2SuccessorPath(v1.replaceAll('{id}', 'x')), v1).toBe(o.path.replaceAll('{id}', 'x'));
    }
  });

  it('is written into docs/api/versions.md exactly as the contract says', async () => {
    const text = await doc('versions.md');
    const between = text.split('<!-- v2-operations:start -->')[1]?.split('<!-- v2-operations:end -->')[0]?.trim();
    expect(normalizedTable(between ?? '')).toBe(normalizedTable(v2OperationTable()));
  });
});

describe('docs/api/scopes.md', () => {
  it('describes every scope as the catalogue does', async () => {
    const text = normalizedTable(await doc('scopes.md'));
    for (const scope of SCOPES) expect(text, scope).toContain(`|\`${scope}\`|`);
    for (const description of Object.values(SCOPE_DESCRIPTIONS)) expect(text).toContain(description);
  });
});
