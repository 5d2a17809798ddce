import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { say } from './log.ts';
import { portFor, waitFor } from './ports.ts';
import type { Started } from './postgres.ts';
import { findBinary, installDebianPackage, spawnServer } from './servers.ts';

/** NATS answers and has JetStream enabled. */
export async function jetStreamAnswers(url: string): Promise<boolean> {
  let nc: Awaited<ReturnType<typeof connect>> | undefined;
  try {
    nc = await connect({ servers: url.split(','), timeout: 2000, maxReconnectAttempts: 0 });
    await (await jetstreamManager(nc)).getAccountInfo();
    return true;
  } catch {
    return false;
  } finally {
    await nc?.close();
  }
}

const findNatsServer = () => findBinary('nats-server');
const installNatsServer = () => installDebianPackage('NATS', 'nats-server', 'nats-server', 'set NATS_URL to a NATS with JetStream');

/**
 * The NATS at NATS_URL when it answers with JetStream; otherwise a nats-server started here
 * (installed from Debian's packages when missing), its streams kept in .holdfast/nats.
 */
export async function ensureNats(root: string, requested: string | undefined): Promise<{ url: string; started?: Started }> {
  const url = requested ?? 'nats://127.0.0.1:4222';
  if (await jetStreamAnswers(url)) {
    say(`NATS: using ${url}`);
    return { url };
  }
  if (requested) say('NATS at NATS_URL does not answer with JetStream; starting one instead');
  const binary = findNatsServer() ?? installNatsServer();
  const port = await portFor(4222);
  const storeDir = join(root, '.holdfast', 'nats');
  mkdirSync(storeDir, { recursive: true });
  const started = spawnServer(binary, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], join(root, '.holdfast', 'nats.log'));
  const localUrl = `nats://127.0.0.1:${port}`;
  await waitFor('nats-server', () => jetStreamAnswers(localUrl), 15_000);
  say(`NATS: started nats-server with JetStream on 127.0.0.1:${port}`);
  return { url: localUrl, started };
}

/** Removes the streams a run created under its subject prefix (the smoke start's), leaving everything else alone. */
export async function deletePrefixedStreams(url: string, prefix: string): Promise<void> {
  const nc = await connect({ servers: url.split(','), timeout: 2000, maxReconnectAttempts: 0 });
  try {
    const jsm = await jetstreamManager(nc);
    const name = prefix.replaceAll('.', '_');
    for await (const stream of jsm.streams.list()) {
      if (stream.config.name.startsWith(name)) await jsm.streams.delete(stream.config.name);
    }
  } finally {
    await nc.close();
  }
}

export interface PermissionedNats {
  /** The server's URL with the stack's own credentials (full access: the smoke's checks, clean-up). */
  adminUrl: string;
  /** NATS_URL, NATS_USER and NATS_PASSWORD of one process: its own user, only its own subjects. */
  envOf: (service: string) => NodeJS.ProcessEnv;
  stop: () => Promise<void>;
}

/**
 * A private nats-server with infra/nats's authorization rendered for `prefix` (each process its own
 * user and subjects, no anonymous access), so that a permission the grants forgot fails the run.
 */
export async function startPermissionedNats(prefix: string, storeDir?: string): Promise<PermissionedNats> {
  const { NATS_SERVICES, natsPasswordVariable, newNatsPassword, renderNatsAuthorization } = await import('@holdfast/messaging');
  const { startNatsServer } = await import('@holdfast/messaging/nats-server');
  const passwords = Object.fromEntries(NATS_SERVICES.map((s) => [s, newNatsPassword()]));
  const admin = newNatsPassword();
  const server = await startNatsServer({
    config: renderNatsAuthorization(prefix, [`{ user: "holdfast-stack", password: "${admin}" }`]),
    env: Object.fromEntries(NATS_SERVICES.map((s) => [natsPasswordVariable(s), passwords[s]!])),
    ...(storeDir ? { storeDir } : {}),
    binary: findNatsServer() ?? installNatsServer(),
  });
  return {
    adminUrl: server.url.replace('nats://', `nats://holdfast-stack:${admin}@`),
    envOf: (service) => ({ NATS_URL: server.url, NATS_USER: service, NATS_PASSWORD: passwords[service] }),
    stop: server.stop,
  };
}
