import { createLogger, type Logger } from '@holdfast/logging';

/** Silent unless HOLDFAST_TEST_LOGS is set (then at that level, e.g. `debug`). */
export function testLogger(service = 'test'): Logger {
  return createLogger({ service, level: process.env.HOLDFAST_TEST_LOGS || 'silent' });
}
