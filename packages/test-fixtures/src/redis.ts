import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    holdfastRedisUrl: string;
  }
}

/**
 * The Redis of the test run (REDIS_URL, else 127.0.0.1:6379, else a container): give it to every
 * process a test starts as REDIS_URL. Rate-limit keys are namespaced by database, so test files
 * (each on a database of its own) never share counts.
 */
export function testRedisUrl(): string {
  return inject('holdfastRedisUrl');
}
