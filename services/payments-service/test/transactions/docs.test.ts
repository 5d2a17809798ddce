import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { movesTable } from './doc-table.js';

const normalized = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((line) =>
      line
        .split('|')
        .map((cell) => cell.trim().replace(/^-+$/, '---').replace(/\s+/g, ' '))
        .join('|'),
    )
    .join('\n');

describe('docs/transactions.md', () => {
  it('shows the moves exactly as TRANSACTION_MOVES has them', async () => {
    const text = await readFile(new URL('../../../../docs/transactions.md', import.meta.url), 'utf8');
    const between = text.split('<!-- transaction-moves:start -->')[1]?.split('<!-- transaction-moves:end -->')[0] ?? '';
    expect(normalized(between)).toBe(normalized(movesTable()));
  });
});
