import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { Started } from './postgres.ts';
import { ensureDebianServer, findBinary, installDebianPackage } from './servers.ts';

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

/** NATS as Debian packages it. */
const NATS_PACKAGE = { what: 'NATS', binary: 'nats-server', pkg: 'nats-server', instead: 'set NATS_URL to a NATS with JetStream' };
const findNatsServer = () => findBinary(NATS_PACKAGE.binary);
const installNatsServer = () => installDebianPackage(NATS_PACKAGE.what, NATS_PACKAGE.pkg, NATS_PACKAGE.binary, NATS_PACKAGE.instead);

/**
 * The NATS at NATS_URL when it answers with JetStream; otherwise a nats-server started here
 * (installed from Debian's packages when missing), its streams kept in .holdfast/nats.
 */
export async function ensureNats(root: string, requested: string | undefined): Promise<{ url: string; started?: Started }> {
  const storeDir = join(root, '.holdfast', 'nats');
  return ensureDebianServer(root, requested, {
    ...NATS_PACKAGE,
    variable: 'NATS_URL',
    answering: 'answer with JetStream',
    scheme: 'nats',
    defaultPort: 4222,
    answers: jetStreamAnswers,
    args: (port) => {
      mkdirSync(storeDir, { recursive: true });
      return ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir];
    },
  });
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
