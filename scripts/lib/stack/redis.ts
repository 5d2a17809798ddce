import { connect } from 'node:net';
import { join } from 'node:path';
import { say } from './log.ts';
import { portFor, waitFor } from './ports.ts';
import type { Started } from './postgres.ts';
import { findBinary, installDebianPackage, spawnServer } from './servers.ts';

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
export async function ensureRedis(root: string, requested: string | undefined): Promise<{ url: string; started?: Started }> {
  const url = requested ?? 'redis://127.0.0.1:6379';
  if (await redisAnswers(url)) {
    say(`Redis: using ${url}`);
    return { url };
  }
  if (requested) say('Redis at REDIS_URL does not answer; starting one instead');
  const binary =
    findBinary('redis-server') ?? installDebianPackage('Redis', 'redis-server', 'redis-server', 'set REDIS_URL to a Redis 6 or later');
  const port = await portFor(6379);
  const started = spawnServer(
    binary,
    ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'],
    join(root, '.holdfast', 'redis.log'),
  );
  const localUrl = `redis://127.0.0.1:${port}`;
  await waitFor('redis-server', () => redisAnswers(localUrl), 15_000);
  say(`Redis: started redis-server on 127.0.0.1:${port}`);
  return { url: localUrl, started };
}
