import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/index.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { lines, logger: createLogger({ service: 'test-service', level: 'info', destination }) };
}

describe('createLogger', () => {
  it('adds no trace fields while tracing is off (no SDK registered)', () => {
    const { lines, logger } = capture();
    logger.info('outside any span');
    expect(lines[0]).not.toHaveProperty('traceId');
    expect(lines[0]).not.toHaveProperty('spanId');
  });

  it('writes JSON with the service, an ISO time and a textual level', () => {
    const { lines, logger } = capture();
    logger.info({ reqId: 'req_1' }, 'hello');
    expect(lines[0]).toMatchObject({ service: 'test-service', level: 'info', msg: 'hello', reqId: 'req_1' });
    expect(String(lines[0]?.time)).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it('redacts credentials in headers and secrets in nested bodies', () => {
    const { lines, logger } = capture();
    logger.info(
      {
        req: { headers: { authorization: 'Bearer abc', 'x-api-key': 'hf_test_abc', accept: 'json' } },
        body: { password: 'P@ssw0rd!', user: { refreshToken: 'rt', name: 'ann' } },
        client: { clientSecret: 'hf_secret_x' },
      },
      'request',
    );
    const text = JSON.stringify(lines[0]);
    for (const secret of ['Bearer abc', 'hf_test_abc', 'P@ssw0rd!', '"rt"', 'hf_secret_x']) expect(text).not.toContain(secret);
    expect(text).toContain('"accept":"json"');
    expect(text).toContain('"name":"ann"');
  });

  it('redacts wallet provider credentials, whether under config or on their own', () => {
    const { lines, logger } = capture();
    logger.info(
      {
        config: { apiKey: 'a_key' },
        vendor: { apiSecret: 'b_secret', apiPrivateKey: 'c_priv', keySecret: 'd_secret' },
        seedSealed: 'v1.x',
      },
      'vendor',
    );
    const text = JSON.stringify(lines[0]);
    for (const secret of ['a_key', 'b_secret', 'c_priv', 'd_secret', 'v1.x']) expect(text).not.toContain(secret);
    expect(text).toContain('"config":"[redacted]"');
  });
});
