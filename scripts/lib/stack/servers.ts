import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { say } from './log.ts';
import { portFor, waitFor } from './ports.ts';
import type { Started } from './postgres.ts';

/** A server binary on PATH (or the usual system directories). */
export function findBinary(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/usr/bin', '/usr/local/bin'])) {
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Installs Debian's package of a server the stack needs (as root, or with passwordless sudo) and
 * returns the binary's path; `instead` tells the user what to do where that is not possible.
 */
export function installDebianPackage(what: string, pkg: string, binary: string, instead: string): string {
  const asRoot = process.getuid?.() === 0;
  say(`${what}: no ${binary} found; installing Debian's package (apt-get install ${pkg})`);
  const options = { stdio: 'inherit' as const, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } };
  const run = (args: string[]) =>
    asRoot ? execFileSync(args[0]!, args.slice(1), options) : execFileSync('sudo', ['-n', ...args], options);
  try {
    run(['apt-get', 'update', '-qq']);
    run(['apt-get', 'install', '-y', '-qq', pkg]);
  } catch (error) {
    throw new Error(`Could not install ${pkg} (needs root or passwordless sudo on Debian). Install it yourself, or ${instead}.`, {
      cause: error,
    });
  }
  const found = findBinary(binary);
  if (!found) throw new Error(`${pkg} was installed but ${binary} is not on PATH`);
  return found;
}

/**
 * Starts a server of the stack in the background, its output appended to `logFile`; killed when
 * this command exits, stopped (SIGTERM, waiting for its exit) by the returned `stop`.
 */
export function spawnServer(binary: string, args: string[], logFile: string): Started {
  mkdirSync(dirname(logFile), { recursive: true });
  const log = openSync(logFile, 'a');
  const child = spawn(binary, args, { stdio: ['ignore', log, log], detached: true });
  process.once('exit', () => child.kill('SIGKILL'));
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * A server of the stack from Debian's packages (NATS, Redis): the one at `requested` (or the default
 * URL) when `answers` says it does; otherwise its binary (installed when missing) started here on a
 * free port near the default one, with the arguments `args` gives for that port, and waited for.
 */
export async function ensureDebianServer(
  root: string,
  requested: string | undefined,
  s: {
    what: string;
    /** The variable that names it, for the messages. */
    variable: string;
    /** How `answers` is checked, for the messages ("answer with JetStream"). */
    answering: string;
    binary: string;
    pkg: string;
    instead: string;
    scheme: string;
    defaultPort: number;
    answers: (url: string) => Promise<boolean>;
    args: (port: number) => string[];
  },
): Promise<{ url: string; started?: Started }> {
  const url = requested ?? `${s.scheme}://127.0.0.1:${s.defaultPort}`;
  if (await s.answers(url)) {
    say(`${s.what}: using ${url}`);
    return { url };
  }
  if (requested) say(`${s.what} at ${s.variable} does not ${s.answering}; starting one instead`);
  const binary = findBinary(s.binary) ?? installDebianPackage(s.what, s.pkg, s.binary, s.instead);
  const port = await portFor(s.defaultPort);
  const started = spawnServer(binary, s.args(port), join(root, '.holdfast', `${s.scheme}.log`));
  const localUrl = `${s.scheme}://127.0.0.1:${port}`;
  await waitFor(s.binary, () => s.answers(localUrl), 15_000);
  say(`${s.what}: started ${s.binary} on 127.0.0.1:${port}`);
  return { url: localUrl, started };
}
