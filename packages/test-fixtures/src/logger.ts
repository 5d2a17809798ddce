import { Writable } from 'node:stream';
import { createLogger, type Logger } from '@holdfast/logging';

/** Silent unless HOLDFAST_TEST_LOGS is set (then at that level, e.g. `debug`). */
export function testLogger(service = 'test'): Logger {
  return createLogger({ service, level: process.env.HOLDFAST_TEST_LOGS || 'silent' });
}

/** One JSON log line as the service wrote it (`level` is textual: `warn`, `error`). */
export type LogLine = Record<string, unknown> & { level: string; msg: string };

/**
 * A real logger (the service's own format and redaction) that keeps every line in `lines`, so that
 * a test asserts what an operator would read in the logs.
 */
export function capturingLogger(service = 'test', level = 'info'): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as LogLine);
      done();
    },
  });
  return { logger: createLogger({ service, level, destination }), lines };
}
