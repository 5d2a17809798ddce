import { pingOnce } from '@holdfast/db';
import { databaseUrl, dropStaleTestDatabases, ensureTemplateDatabase } from '@holdfast/db/testing';
import { tcpAnswers } from '@holdfast/messaging/ports';
import type { TestProject } from 'vitest/node';
import { startContainers } from './containers.js';

const postgresAnswers = (url: string): Promise<boolean> =>
  pingOnce(url, 'holdfast-tests').then(
    () => true,
    () => false,
  );

/** Whether the server of a URL (the first of a comma-separated list) accepts TCP connections. */
function urlAnswers(url: string, defaultPort: number): Promise<boolean> {
  const { hostname, port } = new URL(url.split(',')[0] ?? url);
  return tcpAnswers(hostname, Number(port || defaultPort), 2000);
}

/**
 * Once per test run: find PostgreSQL, NATS and Redis (the environment's, else containers), build the
 * migrated template database, and hand both to the test files.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const env = process.env;
  let adminUrl = databaseUrl(
    env.HOLDFAST_TEST_DATABASE_URL ?? env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/holdfast',
    'postgres',
  );
  let natsUrl = env.NATS_URL ?? 'nats://127.0.0.1:4222';
  let redisUrl = env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  let stopContainers = async () => {};

  if (!(await postgresAnswers(adminUrl)) || !(await urlAnswers(natsUrl, 4222)) || !(await urlAnswers(redisUrl, 6379))) {
    const containers = await startContainers();
    if (!containers) {
      throw new Error(
        `Tests need PostgreSQL (${adminUrl}), NATS with JetStream (${natsUrl}) and Redis (${redisUrl}); neither a server nor a container runtime answered. Run ./scripts/test, which starts them, or set DATABASE_URL, NATS_URL and REDIS_URL.`,
      );
    }
    adminUrl = containers.databaseUrl;
    natsUrl = containers.natsUrl;
    redisUrl = containers.redisUrl;
    stopContainers = containers.stop;
  }

  await dropStaleTestDatabases(adminUrl);
  const template = await ensureTemplateDatabase(adminUrl);
  project.provide('holdfastDatabaseAdminUrl', adminUrl);
  project.provide('holdfastTemplateDatabase', template);
  project.provide('holdfastNatsUrl', natsUrl);
  project.provide('holdfastRedisUrl', redisUrl);
  return stopContainers;
}
