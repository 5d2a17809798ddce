import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { normalizedTable } from '../support/markdown.js';
import { movesTable } from '../support/transaction-doc-table.js';

describe('docs/transactions.md', () => {
  it('shows the moves exactly as TRANSACTION_MOVES has them', async () => {
    const text = await readFile(new URL('../../../../docs/transactions.md', import.meta.url), 'utf8');
    const between = text.split('<!-- transaction-moves:start -->')[1]?.split('<!-- transaction-moves:end -->')[0] ?? '';
    expect(normalizedTable(between)).toBe(normalizedTable(movesTable()));
  });
});
