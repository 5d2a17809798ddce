import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';
/**
 * A private nats-server (from PATH) with JetStream and the given configuration lines (an
 * authorization block...), on a free port of 127.0.0.1 with its own store directory. `env` is the
 * server's environment: nats.conf reads the processes' passwords from it. `storeDir` keeps the
 * streams across runs (default: a temporary directory, removed at stop).
 */
export async function startNatsServer(options: {
  config: string;
  env?: Record<string, string>;
  storeDir?: string;
  binary?: string;
}): Promise<{
  url: string;
  stop: () => Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), 'holdfast-nats-'));
  const file = join(dir, 'nats.conf');
  // A port free a moment ago may be taken before nats-server binds it (tests run in parallel): try again on another.
  let lastError = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    await writeFile(
      file,
      `listen: 127.0.0.1:${port}\njetstream { store_dir: ${JSON.stringify(options.storeDir ?? join(dir, 'js'))} }\n${options.config}\n`,
    );
    const child = spawn(options.binary ?? 'nats-server', ['-c', file], {
      env: { PATH: process.env.PATH ?? '', ...options.env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const ready = await new Promise<boolean>((resolve) => {
      let log = '';
      const timer = setTimeout(() => resolve(false), 15_000);
      child.stderr?.on('data', (chunk: Buffer) => {
        log = (log + chunk.toString()).slice(-4000);
        lastError = log;
        if (log.includes('Server is ready')) {
          clearTimeout(timer);
          resolve(true);
        }
      });
      child.once('exit', () => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    if (!ready) {
      if (child.exitCode === null) child.kill('SIGKILL');
      continue;
    }
    child.stderr?.resume();
    return {
      url: `nats://127.0.0.1:${port}`,
      stop: async () => {
        if (child.exitCode === null) {
          await new Promise<void>((resolve) => {
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          });
        }
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  await rm(dir, { recursive: true, force: true });
  throw new Error(`nats-server did not start: ${lastError.trim().split('\n').slice(-3).join(' | ')}`);
}
