import { createLogger } from '@holdfast/logging';
import { describe, expect, it, vi } from 'vitest';
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

  it('waits while the event loop is busy, and collects once it is idle', async () => {
    const calls: unknown[] = [];
    const busy = [0.9, 0.6];
    collectStartupGarbage(
      logger,
      (options) => calls.push(options),
      10,
      () => busy.shift() ?? 0.01,
    );
    await new Promise((r) => setTimeout(r, 25));
    expect(calls).toEqual([]);
    await vi.waitFor(() => expect(calls).toEqual([{ type: 'major', execution: 'sync', flavor: 'last-resort' }]), { timeout: 5_000 });
    // It waited through both busy readings first.
    expect(busy).toEqual([]);
  });

  it('does nothing when the process was started without --expose-gc', () => {
    expect(globalThis.gc).toBeUndefined();
    expect(() => collectStartupGarbage(logger)).not.toThrow();
  });
});
