import { createLogger } from '@holdfast/logging';
import { describe, expect, it } from 'vitest';
import { collectStartupGarbage } from '../src/startup-heap.js';

const logger = createLogger({ service: 'startup-heap-test', level: 'silent' });

describe('collectStartupGarbage', () => {
  it('runs one memory-reducing full collection after the delay', async () => {
    const calls: unknown[] = [];
    collectStartupGarbage(logger, (options) => calls.push(options), 10);
    expect(calls).toEqual([]);
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toEqual([{ type: 'major', execution: 'sync', flavor: 'last-resort' }]);
  });

  it('does nothing when the process was started without --expose-gc', () => {
    expect(globalThis.gc).toBeUndefined();
    expect(() => collectStartupGarbage(logger)).not.toThrow();
  });
});
