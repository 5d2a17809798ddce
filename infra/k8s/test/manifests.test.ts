// The cluster manifests, rendered for each environment by `kubectl kustomize` and checked against
// the published schemas of their kinds (src/kustomize.ts), the closed schema of the NATS chart
// values, the services' own configuration loaders, and the rules of docs/scaling.md.
import { readFileSync } from 'node:fs';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { NATS_SERVICES, natsPasswordVariable, natsPermissions } from '../../../packages/messaging/src/permissions.ts';
import { IndexerEnv, indexerConfigFrom } from '../../../services/chain-indexer/src/config.ts';
import { natsSetupConfigFrom, PaymentsEnv, paymentsConfigFrom } from '../../../services/payments-service/src/config.ts';
import { DispatcherEnv, dispatcherConfigFrom } from '../../../services/webhook-dispatcher/src/config.ts';
import { WorkspaceEnv, workspaceConfigFrom } from '../../../services/workspace-service/src/config.ts';
import { kustomizationDir, type Manifest, readYamlDocuments, render, schemaErrors } from '../src/kustomize.ts';
import { NatsChartValues } from '../src/schemas.ts';

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
}
interface Container {
  name: string;
  image: string;
  ports?: { name?: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  startupProbe?: { httpGet?: { path: string; port: string | number } };
  securityContext?: { allowPrivilegeEscalation?: boolean; readOnlyRootFilesystem?: boolean; capabilities?: { drop?: string[] } };
  volumeMounts?: { name: string; mountPath: string }[];
}
interface PodSpec {
  volumes?: { name: string; emptyDir?: object }[];
  containers: Container[];
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  automountServiceAccountToken?: boolean;
}
type Workload = Manifest & { spec: { replicas?: number; template: { metadata?: { labels?: Record<string, string> }; spec: PodSpec } } };

const PROCESSES = [
  { name: 'payments-service', portEnv: 'PAYMENTS_PORT', schema: PaymentsEnv, load: paymentsConfigFrom, api: true, autoscaled: true },
  { name: 'workspace-service', portEnv: 'WORKSPACE_PORT', schema: WorkspaceEnv, load: workspaceConfigFrom, api: true, autoscaled: true },
  {
    name: 'webhook-dispatcher',
    portEnv: 'DISPATCHER_PORT',
    schema: DispatcherEnv,
    load: dispatcherConfigFrom,
    api: false,
    autoscaled: true,
  },
  // One leader per network: more instances add failover, not throughput (docs/scaling.md).
  { name: 'chain-indexer', portEnv: 'INDEXER_PORT', schema: IndexerEnv, load: indexerConfigFrom, api: false, autoscaled: false },
] as const;

/** Values standing in for the Secret keys, in the formats the services demand. */
const SECRET_SAMPLES: Record<string, string> = {
  'holdfast-db-app/uri': 'postgresql://holdfast:sample-password@holdfast-db-rw.holdfast.svc:5432/holdfast',
  'holdfast-chain/CHAIN_RPC_URLS': 'base-sepolia=https://rpc.example/sample-key',
  'holdfast-internal/INTERNAL_API_KEY': 'internal-sample-key-0123456789',
  'holdfast-payments/DATA_ENCRYPTION_KEY': Buffer.alloc(32, 5).toString('base64'),
  'holdfast-payments/IDENTITY_PROVIDER_API_KEY': 'identity-sample-key-0123456789',
  'holdfast-payments/IDENTITY_PROVIDER_WEBHOOK_SECRET': 'identity-webhook-sample-secret-0123456789abcdef',
  'holdfast-workspace/DATA_ENCRYPTION_KEY': Buffer.alloc(32, 7).toString('base64'),
  'holdfast-workspace/JWT_SECRET': 'jwt-sample-secret-0123456789abcdef0123456789',
  'holdfast-workspace/MAILER_API_KEY': 'mailer-sample-key-0123456789',
  'holdfast-dispatcher/DATA_ENCRYPTION_KEY': Buffer.alloc(32, 9).toString('base64'),
  ...Object.fromEntries(NATS_SERVICES.map((s) => [`holdfast-nats/${natsPasswordVariable(s)}`, `nats-sample-password-${s}`])),
};

const SECRET_NAME = /KEY|SECRET|PASSWORD|TOKEN|DATABASE_URL|RPC_URLS|CREDS/;

/** `secret/key` of each row of the Secrets table in infra/k8s/README.md. */
const documentedSecretKeys = new Set(
  readFileSync(kustomizationDir('README.md'), 'utf8')
    .split('\n')
    .map((line) => line.split('|').map((cell) => cell.trim().replace(/^`|`$/g, '')))
    .filter((cells) => cells.length > 3 && cells[1]?.startsWith('holdfast-'))
    .map((cells) => `${cells[1]}/${cells[2]}`),
);

function find<T extends Manifest>(objects: Manifest[], kind: string, name: string): T {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`${kind}/${name} is missing`);
  return found as T;
}

function configMapData(objects: Manifest[], name: string): Record<string, string> {
  return (find(objects, 'ConfigMap', name) as Manifest & { data: Record<string, string> }).data;
}

/** The environment a container gets: its ConfigMaps, then its env (Secret keys from SECRET_SAMPLES; optional ones unset). */
function environmentOf(objects: Manifest[], container: Container): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    if (!source.configMapRef) throw new Error(`${container.name}: envFrom other than a ConfigMap`);
    Object.assign(env, configMapData(objects, source.configMapRef.name));
  }
  for (const variable of container.env ?? []) {
    const ref = variable.valueFrom?.secretKeyRef;
    if (ref) {
      const sample = SECRET_SAMPLES[`${ref.name}/${ref.key}`];
      if (sample === undefined && !ref.optional) throw new Error(`no sample for the required Secret key ${ref.name}/${ref.key}`);
      if (sample !== undefined) env[variable.name] = sample;
    } else if (variable.value !== undefined) env[variable.name] = variable.value;
  }
  return env;
}

describe.each(['staging', 'production', 'production-restore'])('overlay %s, as kubectl kustomize renders it', (overlay) => {
  const objects = render(kustomizationDir('overlays', overlay));
  // The restore overlay is production with a recovered database.
  const environment = overlay === 'staging' ? 'staging' : 'production';

  it('validates every object against its published schema (Kubernetes 1.34, CloudNativePG, Prometheus Operator)', () => {
    expect(objects.length).toBeGreaterThan(30);
    for (const object of objects) {
      const label = `${object.kind}/${object.metadata.name}`;
      expect(schemaErrors(object), label).toEqual([]);
      expect(object.metadata.namespace, label).toBe(overlay === 'staging' ? 'holdfast-staging' : 'holdfast');
    }
  });

  it('inlines no secret: no Secret object, no secret-looking value in a ConfigMap or an env value', () => {
    expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
    for (const map of objects.filter((o) => o.kind === 'ConfigMap')) {
      for (const key of Object.keys((map as Manifest & { data: object }).data)) expect(key, map.metadata.name).not.toMatch(SECRET_NAME);
    }
    for (const workload of objects.filter((o): o is Workload => o.kind === 'Deployment' || o.kind === 'Job')) {
      for (const container of workload.spec.template.spec.containers) {
        for (const variable of container.env ?? []) {
          if (SECRET_NAME.test(variable.name)) expect(variable.valueFrom?.secretKeyRef, `${container.name} ${variable.name}`).toBeDefined();
          const ref = variable.valueFrom?.secretKeyRef;
          // Every Secret key a process reads is documented for the operator who creates it.
          if (ref) expect(documentedSecretKeys.has(`${ref.name}/${ref.key}`), `${ref.name}/${ref.key} in infra/k8s/README.md`).toBe(true);
        }
      }
    }
  });

  describe.each(PROCESSES)('$name', (process) => {
    const deployment = find<Workload>(objects, 'Deployment', process.name);
    const pod = deployment.spec.template.spec;
    const [container] = pod.containers;
    if (!container) throw new Error('no container');
    const env = environmentOf(objects, container);

    it('runs non-root with a read-only root file system (an emptyDir at /tmp), no privilege escalation, no capabilities, no API token', () => {
      expect(pod.securityContext?.runAsNonRoot).toBe(true);
      expect(pod.securityContext?.runAsUser).toBeGreaterThan(0);
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(container.securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
      const tmp = container.volumeMounts?.find((m) => m.mountPath === '/tmp');
      expect(pod.volumes?.find((v) => v.name === tmp?.name)?.emptyDir).toBeDefined();
    });

    it('probes liveness on /health and readiness on /health/ready, on the port the process listens on', () => {
      const port = container.ports?.find((p) => p.name === 'http');
      expect(port?.containerPort).toBe(Number(env[process.portEnv]));
      expect(container.livenessProbe?.httpGet).toEqual({ path: '/health', port: 'http' });
      expect(container.startupProbe?.httpGet).toEqual({ path: '/health', port: 'http' });
      expect(container.readinessProbe?.httpGet).toEqual({ path: '/health/ready', port: 'http' });
    });

    it('requests CPU and memory and is limited in memory', () => {
      expect(container.resources?.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
      expect(container.resources?.limits?.memory).toEqual(expect.any(String));
    });

    it('runs the image of the release by its digest, the tag beside it for people', () => {
      expect(container.image).toMatch(
        new RegExp(`^registry\\.holdfast\\.example/holdfast/${process.name}:\\d+\\.\\d+\\.\\d+@sha256:[0-9a-f]{64}$`),
      );
    });

    it('has a PodDisruptionBudget over its pods and, where instances add throughput, an autoscaler', () => {
      const selector = { 'app.kubernetes.io/name': process.name };
      expect(deployment.spec.template.metadata?.labels).toMatchObject(selector);
      const budget = find<Manifest & { spec: { maxUnavailable: number; selector: { matchLabels: object } } }>(
        objects,
        'PodDisruptionBudget',
        process.name,
      );
      expect(budget.spec).toEqual({ maxUnavailable: 1, selector: { matchLabels: selector } });
      const autoscaler = objects.find((o) => o.kind === 'HorizontalPodAutoscaler' && o.metadata.name === process.name) as
        | (Manifest & { spec: { scaleTargetRef: object; minReplicas: number } })
        | undefined;
      if (process.autoscaled) {
        expect(autoscaler?.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: process.name });
        expect(autoscaler?.spec.minReplicas).toBeGreaterThanOrEqual(2);
        // The autoscaler owns the count; a replicas field would reset it at every apply.
        expect(deployment.spec.replicas).toBeUndefined();
      } else {
        expect(autoscaler).toBeUndefined();
        expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
      }
      if (process.api) expect(find(objects, 'Service', process.name)).toBeDefined();
    });

    it('sets only variables the process reads, and the process accepts the configuration', () => {
      const known = Object.keys(process.schema.properties);
      expect(Object.keys(env).filter((name) => !known.includes(name))).toEqual([]);
      expect(() => process.load(env)).not.toThrow();
      expect(env.APP_ENV).toBe(environment);
      // Its own NATS user, with the password nats-server knows it by (operators/nats-values.yaml).
      expect(env.NATS_USER).toBe(process.name);
      const password = container.env?.find((v) => v.name === 'NATS_PASSWORD')?.valueFrom?.secretKeyRef;
      expect(password).toEqual({ name: 'holdfast-nats', key: natsPasswordVariable(process.name) });
      // Production refuses to start without them (packages/config), so the overlay must carry them.
      if (environment === 'production') {
        const { NATS_USER: _user, NATS_PASSWORD: _password, ...anonymous } = env;
        expect(() => process.load(anonymous)).toThrow(/NATS_USER: production needs this process's own NATS user/);
      }
      // The APIs' instances share their rate-limit counts through Redis (base/redis.yaml); outside
      // local they refuse to start without it.
      if (process.api) {
        expect(env.REDIS_URL).toBe('redis://redis:6379');
        const { REDIS_URL: _redis, ...alone } = env;
        expect(() => process.load(alone)).toThrow(/REDIS_URL: is required/);
      }
    });

    it('is killed only after its preStop pause and its whole SHUTDOWN_TIMEOUT drain', () => {
      const command = container.lifecycle?.preStop?.exec?.command ?? [];
      expect(command).toEqual(['sleep', expect.stringMatching(/^\d+$/)]);
      const pauseMs = Number(command[1]) * 1000;
      const { shutdownTimeoutMs } = process.load(env);
      expect((pod.terminationGracePeriodSeconds ?? 0) * 1000).toBeGreaterThan(pauseMs + shutdownTimeoutMs);
    });

    it('is migrated by a Job with the same image and configuration, before the rollout', () => {
      const job = find<Workload & { metadata: { annotations: Record<string, string> } }>(objects, 'Job', `${process.name}-migrate`);
      const [migrate] = job.spec.template.spec.containers;
      expect(migrate?.image).toBe(container.image);
      expect((migrate as unknown as { command: string[] }).command).toEqual(['node', 'bundle/migrate.js']);
      expect(migrate?.env).toEqual(container.env);
      expect(migrate?.envFrom).toEqual(container.envFrom);
      expect(job.metadata.annotations).toMatchObject({ 'argocd.argoproj.io/hook': 'Sync', 'argocd.argoproj.io/sync-wave': '-1' });
      expect(job.spec.template.spec.securityContext?.runAsNonRoot).toBe(true);
      expect(migrate?.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
      expect(migrate?.resources?.limits?.memory).toEqual(expect.any(String));
    });
  });

  it('sets NATS up (streams, durable consumers) by a Job before the rollout, as the NATS user nats-setup', () => {
    const job = find<Workload & { metadata: { annotations: Record<string, string> } }>(objects, 'Job', 'nats-setup');
    const [setup] = job.spec.template.spec.containers;
    const payments = find<Workload>(objects, 'Deployment', 'payments-service').spec.template.spec.containers[0] as Container;
    expect(setup?.image).toBe(payments.image);
    expect((setup as unknown as { command: string[] }).command).toEqual(['node', 'bundle/nats-setup.js']);
    expect(job.metadata.annotations).toMatchObject({ 'argocd.argoproj.io/hook': 'Sync', 'argocd.argoproj.io/sync-wave': '-1' });
    const env = environmentOf(objects, setup as Container);
    expect(env).toMatchObject({
      NATS_USER: 'nats-setup',
      NATS_PASSWORD: SECRET_SAMPLES[`holdfast-nats/${natsPasswordVariable('nats-setup')}`],
    });
    expect(natsSetupConfigFrom(env)).toMatchObject({ NATS_USER: 'nats-setup', NATS_STREAM_REPLICAS: 3 });
    // No process gets the setup's password: its user alone administers streams and consumers.
    for (const process of PROCESSES) {
      const container = find<Workload>(objects, 'Deployment', process.name).spec.template.spec.containers[0] as Container;
      expect(JSON.stringify(container.env), process.name).not.toContain('HOLDFAST_NATS_SETUP_PASSWORD');
    }
  });

  it('keeps every instance at full pool within the PostgreSQL connection limit (docs/scaling.md)', () => {
    const cluster = find<Manifest & { spec: { postgresql: { parameters: Record<string, string> } } }>(objects, 'Cluster', 'holdfast-db');
    const maxConnections = Number(cluster.spec.postgresql.parameters.max_connections);
    let demand = 0;
    for (const process of PROCESSES) {
      const deployment = find<Workload>(objects, 'Deployment', process.name);
      const env = environmentOf(objects, deployment.spec.template.spec.containers[0] as Container);
      const autoscaler = objects.find((o) => o.kind === 'HorizontalPodAutoscaler' && o.metadata.name === process.name) as
        | (Manifest & { spec: { maxReplicas: number } })
        | undefined;
      const instances = autoscaler?.spec.maxReplicas ?? deployment.spec.replicas ?? 1;
      // DATABASE_POOL_SIZE per instance, plus one connection for the outbox relay's LISTEN and one migration each.
      demand += instances * (Number(env.DATABASE_POOL_SIZE) + 1) + 1;
    }
    // PostgreSQL keeps superuser_reserved_connections (3) and the operator needs a few of its own.
    expect(demand).toBeLessThanOrEqual(maxConnections - 10);
  });

  it('drains the dispatcher for longer than one attempt, so shutdown never cuts and re-sends one', () => {
    const container = find<Workload>(objects, 'Deployment', 'webhook-dispatcher').spec.template.spec.containers[0] as Container;
    const config = dispatcherConfigFrom(environmentOf(objects, container));
    expect(config.shutdownTimeoutMs).toBeGreaterThan(config.WEBHOOK_TIMEOUT_MS);
  });

  it('gives payments-service its DATA_ENCRYPTION_KEY from a Secret, so one-time codes can be sealed', () => {
    const container = find<Workload>(objects, 'Deployment', 'payments-service').spec.template.spec.containers[0] as Container;
    const key = container.env?.find((v) => v.name === 'DATA_ENCRYPTION_KEY');
    expect(key).toEqual({
      name: 'DATA_ENCRYPTION_KEY',
      valueFrom: { secretKeyRef: { name: 'holdfast-payments', key: 'DATA_ENCRYPTION_KEY' } },
    });
    expect(paymentsConfigFrom(environmentOf(objects, container)).codeKeyring).not.toBeNull();
  });

  it('replicates each stream on every NATS server and lists every server in NATS_URL', () => {
    const [values] = readYamlDocuments(kustomizationDir('operators', 'nats-values.yaml'));
    const servers = (values as { config: { cluster: { replicas: number } } }).config.cluster.replicas;
    const config = configMapData(objects, 'holdfast-config');
    expect(Number(config.NATS_STREAM_REPLICAS)).toBe(servers);
    // The chart's StatefulSet pods of the release `nats`, by name on its headless Service.
    expect(config.NATS_URL?.split(',')).toEqual(Array.from({ length: servers }, (_, i) => `nats://nats-${i}.nats-headless:4222`));
  });

  it('reads DATABASE_URL from the Secret the CloudNativePG cluster writes', () => {
    const cluster = find(objects, 'Cluster', 'holdfast-db');
    const deployment = find<Workload>(objects, 'Deployment', 'payments-service');
    const url = deployment.spec.template.spec.containers[0]?.env?.find((v) => v.name === 'DATABASE_URL');
    expect(url?.valueFrom?.secretKeyRef).toEqual({ name: `${cluster.metadata.name}-app`, key: 'uri' });
  });
});

describe('PostgreSQL and NATS', () => {
  it('production runs three PostgreSQL instances with a synchronous standby', () => {
    const cluster = find<Manifest & { spec: { instances: number; minSyncReplicas: number } }>(
      render(kustomizationDir('overlays', 'production')),
      'Cluster',
      'holdfast-db',
    );
    expect(cluster.spec.instances).toBe(3);
    expect(cluster.spec.minSyncReplicas).toBe(1);
  });

  it('the NATS chart values: a cluster of three with JetStream on persistent volumes', () => {
    const [values] = readYamlDocuments(kustomizationDir('operators', 'nats-values.yaml'));
    expect([...Value.Errors(NatsChartValues, values)].map((e) => `${e.path} ${e.message}`)).toEqual([]);
    expect(values).toMatchObject({
      config: {
        cluster: { enabled: true, replicas: 3 },
        jetstream: { enabled: true, fileStore: { enabled: true, pvc: { enabled: true } } },
      },
    });
    // One user per process with exactly the grants of packages/messaging/src/permissions.ts (as
    // infra/nats/authorization.conf), its password from the Secret the processes read.
    const typed = values as {
      config: { merge: { authorization: { users: unknown[] } } };
      container: { env: Record<string, unknown> };
    };
    expect(typed.config.merge.authorization.users).toEqual(
      NATS_SERVICES.map((service) => {
        const grants = natsPermissions(service, '');
        return {
          user: service,
          password: `<< $${natsPasswordVariable(service)} >>`,
          permissions: {
            publish: { allow: grants.publish, ...(grants.publishDeny.length > 0 ? { deny: grants.publishDeny } : {}) },
            subscribe: { allow: grants.subscribe },
            allow_responses: true,
          },
        };
      }),
    );
    expect(typed.container.env).toEqual(
      Object.fromEntries(
        NATS_SERVICES.map((service) => [
          natsPasswordVariable(service),
          { valueFrom: { secretKeyRef: { name: 'holdfast-nats', key: natsPasswordVariable(service) } } },
        ]),
      ),
    );
  });
});
