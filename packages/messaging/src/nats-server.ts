import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  const port = await new Promise<number>((resolve, reject) => {
    const server = createServer().unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
  const dir = await mkdtemp(join(tmpdir(), 'holdfast-nats-'));
  const file = join(dir, 'nats.conf');
  await writeFile(
    file,
    `listen: 127.0.0.1:${port}\njetstream { store_dir: ${JSON.stringify(options.storeDir ?? join(dir, 'js'))} }\n${options.config}\n`,
  );
  const child = spawn(options.binary ?? 'nats-server', ['-c', file], {
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: 'ignore',
  });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = tcpConnect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      }).on('error', () => resolve(false));
    });
    if (open) break;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`nats-server did not start (exit ${child.exitCode})`);
    await new Promise((r) => setTimeout(r, 50));
  }
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
