import { afterAll, beforeAll } from 'vitest';

/**
 * What a test file shares across its tests (a service, a database, a world of users), started once
 * in `beforeAll` and stopped in `afterAll`:
 *
 *   const e = fileFixture(() => startPaymentsEnv());
 *   it('...', async () => { await e.sql`...`; });
 *
 * The answer stands for the started value: reading a property before `beforeAll` ran throws, so
 * a test never sees half a world. Hooks run in the order they are declared, so a later fixture may
 * build on an earlier one (`fileFixture(() => buildWorld(h))`).
 *
 * Set-up is bounded by `timeoutMs` (vitest's hookTimeout when absent) and teardown is certain:
 * its `stop()` (or `close()`) runs in `afterAll` even when a later `beforeAll` failed, and a start that finishes after
 * its hook timed out is stopped as soon as it arrives, so nothing it started outlives the file.
 * `start` itself must stop what it started when it fails halfway.
 */
export function fileFixture<T extends object>(start: () => Promise<T>, options: { timeoutMs?: number } = {}): T {
  let value: T | undefined;
  let started: Promise<T> | undefined;
  let stopped = false;
  beforeAll(async () => {
    started = start();
    value = await started;
  }, options.timeoutMs);
  afterAll(async () => {
    stopped = true;
    if (value) return stopOf(value);
    // Still starting (its hook timed out): stop it whenever it arrives, without holding the file.
    started?.then(stopOf, () => {});
  });
  const current = (): T => {
    if (value) return value;
    throw new Error(stopped ? 'fileFixture: its start failed or timed out' : 'fileFixture: used before its beforeAll ran');
  };
  return standIn(current, () => value !== undefined);
}

/**
 * An object that stands for `current()` (what a file's `beforeAll` starts, read when used): each
 * property read, check or write goes to it; before `ready()`, `current()` says why it is not there.
 * fileFixture answers one; a helper that hands out parts of a fixture (a harness, its world) too.
 */
export function standIn<T extends object>(current: () => T, ready: () => boolean): T {
  return new Proxy({} as T, {
    get: (_, property) => {
      // Not a thenable, and inspectable before it starts (vitest prints values it compares).
      if (!ready() && (property === 'then' || typeof property === 'symbol')) return undefined;
      return Reflect.get(current(), property);
    },
    set: (_, property, value) => Reflect.set(current(), property, value),
    has: (_, property) => Reflect.has(current(), property),
    ownKeys: () => Reflect.ownKeys(current()),
    getOwnPropertyDescriptor: (_, property) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(current(), property);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
}

/** Stops what `start` answered: its `stop()`, or `close()` for a server or a connection that has no `stop`. */
async function stopOf(value: object): Promise<void> {
  const { stop, close } = value as { stop?: () => unknown; close?: () => unknown };
  if (typeof stop === 'function') await stop.call(value);
  else if (typeof close === 'function') await close.call(value);
}
