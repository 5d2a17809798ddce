import { describe, expect, it } from 'vitest';
import { createBatcher } from '../src/batcher.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('batcher', () => {
  it("'while-busy': the first member goes at once, the ones handed in meanwhile together, maxBatch at most", async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const add = createBatcher<number>({
      maxBatch: 2,
      gather: 'while-busy',
      run: async (batch) => {
        batches.push(batch);
        if (batch[0] === 1) await held;
      },
    });
    add(1);
    add(2);
    add(3);
    add(4);
    expect(batches).toEqual([[1]]);
    release();
    await turn();
    expect(batches).toEqual([[1], [2, 3], [4]]);
  });

  it('{ waitMs: 0 }: the members of one event-loop turn go together, maxBatch at most', async () => {
    const batches: number[][] = [];
    const add = createBatcher<number>({ maxBatch: 2, gather: { waitMs: 0 }, run: (batch) => void batches.push(batch) });
    add(1);
    add(2);
    add(3);
    expect(batches).toEqual([]);
    await turn();
    await turn();
    expect(batches).toEqual([[1, 2], [3]]);
  });
});
