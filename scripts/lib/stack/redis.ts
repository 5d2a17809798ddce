import { connect } from 'node:net';
import type { Started } from './postgres.ts';
import { ensureDebianServer } from './servers.ts';

/** A Redis answers PING at the URL (one that asks for a password counts: it is a Redis). */
export function redisAnswers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || 6379), timeout: 2000 });
    const done = (answers: boolean) => {
      socket.destroy();
      resolve(answers);
    };
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(/^(\+PONG|-NOAUTH)/.test(data.toString())));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

/**
 * The Redis at REDIS_URL when it answers; otherwise a redis-server started here (installed from
 * Debian's packages when missing), without persistence: it holds only rate-limit counts of the
 * current minute (ADR 25).
 */
export function ensureRedis(root: string, requested: string | undefined): Promise<{ url: string; started?: Started }> {
  return ensureDebianServer(root, requested, {
    what: 'Redis',
    variable: 'REDIS_URL',
    answering: 'answer',
    binary: 'redis-server',
    pkg: 'redis-server',
    instead: 'set REDIS_URL to a Redis 6 or later',
    scheme: 'redis',
    defaultPort: 6379,
    answers: redisAnswers,
    args: (port) => ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'],
  });
}
