import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, tracingOn } from '../src/index.js';

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

  it('redacts down to the fourth level, in arrays too, and leaves the logged object as it was', () => {
    const { lines, logger } = capture();
    const logged = { a: { b: { token: 't3', c: { password: 'p4', d: { secret: 'five' } } } }, list: [{ apiKey: 'k3' }] };
    logger.info(logged, 'deep');
    const text = JSON.stringify(lines[0]);
    for (const secret of ['t3', 'p4', 'k3']) expect(text).not.toContain(secret);
    // The fifth level is beyond the rule (as with the wildcard paths before).
    expect(text).toContain('"secret":"five"');
    expect(logged.a.b.token).toBe('t3');
    expect(logged.list[0]?.apiKey).toBe('k3');
  });

  it('redacts secret headers only where headers are, and secrets in child bindings and formatted values', () => {
    const { lines, logger } = capture();
    logger.info({ headers: { cookie: 'c1' }, res: { headers: { 'set-cookie': 's1' } }, other: { cookie: 'kept' } }, 'headers');
    logger.child({ reqId: 'req_2', vendor: { apiSecret: 'b_secret' } }).info('child');
    logger.child({}, {}).child({ token: 'tok_9' }).warn('grandchild %j', { refreshToken: 'rt9', name: 'ann' });
    const [headers, child, grandchild] = lines.map((line) => JSON.stringify(line));
    expect(headers).not.toContain('c1');
    expect(headers).not.toContain('s1');
    expect(headers).toContain('"cookie":"kept"');
    expect(child).not.toContain('b_secret');
    expect(lines[1]).toMatchObject({ reqId: 'req_2', vendor: { apiSecret: '[redacted]' } });
    expect(grandchild).not.toContain('tok_9');
    expect(grandchild).not.toContain('rt9');
    expect(grandchild).toContain('ann');
  });

  it('redacts a secret field of a logged error and keeps its message and stack', () => {
    const { lines, logger } = capture();
    logger.error({ err: Object.assign(new Error('vendor refused'), { config: { apiKey: 'a_key' } }) }, 'failed');
    const text = JSON.stringify(lines[0]);
    expect(text).not.toContain('a_key');
    expect(lines[0]).toMatchObject({ err: { type: 'Error', message: 'vendor refused', config: '[redacted]' } });
    expect(String((lines[0]?.err as { stack?: string } | undefined)?.stack)).toContain('vendor refused');
  });
});

describe('tracingOn', () => {
  it('is false without an SDK, true while one is registered, false again once it is disabled', async () => {
    const { trace } = await import('@opentelemetry/api');
    expect(tracingOn()).toBe(false);
    const provider = { getTracer: () => trace.getTracer('unused') };
    expect(trace.setGlobalTracerProvider(provider)).toBe(true);
    try {
      expect(tracingOn()).toBe(true);
    } finally {
      trace.disable();
    }
    expect(tracingOn()).toBe(false);
  });
});
