import { Writable } from 'node:stream';
import { createLogger, type Logger } from '@holdfast/logging';

/** A real logger (with its redaction) writing into memory, so tests can read every line. */
export function capturedLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: createLogger({ service: 'workspace-test', level: 'trace', destination }), lines };
}
