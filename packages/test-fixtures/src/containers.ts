import type { StartedTestContainer } from 'testcontainers';

/**
 * Starts PostgreSQL, NATS and Redis in containers when a container runtime answers. Used only when the
 * environment names no reachable servers; returns undefined (fast) where there is no runtime.
 */
export async function startContainers(): Promise<
  { databaseUrl: string; natsUrl: string; redisUrl: string; stop: () => Promise<void> } | undefined
> {
  let testcontainers: typeof import('testcontainers');
  try {
    testcontainers = await import('testcontainers');
    await testcontainers.getContainerRuntimeClient();
  } catch {
    return undefined;
  }
  const { GenericContainer, Wait } = testcontainers;
  const started: StartedTestContainer[] = [];
  const postgresContainer = await new GenericContainer('postgres:15-alpine')
    .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
    .withExposedPorts(5432)
    .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
    .start();
  started.push(postgresContainer);
  const natsContainer = await new GenericContainer('nats:2.10-alpine')
    .withCommand(['-js'])
    .withExposedPorts(4222)
    .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
    .start();
  started.push(natsContainer);
  const redisContainer = await new GenericContainer('redis:7-alpine')
    .withExposedPorts(6379)
    .withWaitStrategy(Wait.forLogMessage(/Ready to accept connections/))
    .start();
  started.push(redisContainer);
  return {
    databaseUrl: `postgres://postgres@${postgresContainer.getHost()}:${postgresContainer.getMappedPort(5432)}/postgres`,
    natsUrl: `nats://${natsContainer.getHost()}:${natsContainer.getMappedPort(4222)}`,
    redisUrl: `redis://${redisContainer.getHost()}:${redisContainer.getMappedPort(6379)}`,
    stop: async () => {
      await Promise.all(started.map((c) => c.stop()));
    },
  };
}
