// What production needs beyond running pods, asserted on the overlays as `kubectl kustomize` renders
// them: PostgreSQL backups and the restore overlay, the public Ingress with TLS, Prometheus's
// PodMonitor and rules, and the migrations ordered before the processes.
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { kustomizationDir, type Manifest, render, schemaErrors, selects } from '../src/kustomize.ts';
import { pinImages } from '../src/pin-images.ts';
import { PROMETHEUS_RULE_FILE, prometheusRuleText } from '../src/prometheus-rule.ts';

const PROCESSES = ['payments-service', 'workspace-service', 'webhook-dispatcher', 'chain-indexer'];
const overlays = {
  staging: render(kustomizationDir('overlays', 'staging')),
  production: render(kustomizationDir('overlays', 'production')),
  restore: render(kustomizationDir('overlays', 'production-restore')),
};

// biome-ignore lint/suspicious/noExplicitAny: rendered YAML, each field asserted by its path below
function find<T = Manifest & { spec: Record<string, any> }>(objects: Manifest[], kind: string, name: string): T {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`${kind}/${name} is missing`);
  return found as T;
}

const readmeSecretKeys = new Set(
  readFileSync(kustomizationDir('README.md'), 'utf8')
    .split('\n')
    .map((line) => line.split('|').map((cell) => cell.trim().replace(/^`|`$/g, '')))
    .filter((cells) => cells.length > 3 && cells[1]?.startsWith('holdfast-'))
    .map((cells) => `${cells[1]}/${cells[2]}`),
);

describe.each(['staging', 'production'] as const)('PostgreSQL backups (%s)', (name) => {
  const objects = overlays[name];
  const cluster = find(objects, 'Cluster', 'holdfast-db');
  const store = cluster.spec.backup?.barmanObjectStore;

  it('archives every WAL segment and the base backups to the environment own object store, compressed', () => {
    expect(store.destinationPath).toBe(`s3://holdfast-db-backups/${name}`);
    expect(store.wal).toMatchObject({ compression: 'gzip' });
    expect(store.data).toMatchObject({ compression: 'gzip' });
    expect(cluster.spec.backup.retentionPolicy).toMatch(/^\d+[dwm]$/);
    // The bucket's credentials are Secret keys the operator who creates them finds in the README.
    for (const ref of [store.s3Credentials.accessKeyId, store.s3Credentials.secretAccessKey])
      expect(readmeSecretKeys.has(`${ref.name}/${ref.key}`), `${ref.name}/${ref.key} in infra/k8s/README.md`).toBe(true);
  });

  it('takes a base backup every night through a ScheduledBackup of that cluster', () => {
    const scheduled = find(objects, 'ScheduledBackup', 'holdfast-db-nightly');
    expect(scheduled.spec).toMatchObject({ cluster: { name: 'holdfast-db' }, method: 'barmanObjectStore', immediate: true });
    // The operator's cron has six fields, seconds first; one backup a day.
    expect(scheduled.spec.schedule.split(' ')).toEqual(['0', '0', '3', '*', '*', '*']);
  });
});

describe('the restore overlay (overlays/production-restore)', () => {
  const production = find(overlays.production, 'Cluster', 'holdfast-db');
  const restored = find(overlays.restore, 'Cluster', 'holdfast-db');

  it('re-creates holdfast-db by recovery from the object store production archives to', () => {
    expect(schemaErrors(restored as Manifest)).toEqual([]);
    expect(Object.keys(restored.spec.bootstrap)).toEqual(['recovery']);
    const recovery = restored.spec.bootstrap.recovery;
    const source = restored.spec.externalClusters.find((c: { name: string }) => c.name === recovery.source);
    expect(source.barmanObjectStore.destinationPath).toBe(production.spec.backup.barmanObjectStore.destinationPath);
    expect(source.barmanObjectStore.s3Credentials).toEqual(production.spec.backup.barmanObjectStore.s3Credentials);
    // Production archives under its cluster's name (no serverName set): that is where the WAL is.
    expect(production.spec.backup.barmanObjectStore.serverName).toBeUndefined();
    expect(source.barmanObjectStore.serverName).toBe(production.metadata.name);
    expect({ database: recovery.database, owner: recovery.owner }).toEqual(production.spec.bootstrap.initdb);
    expect(Number.isNaN(Date.parse(recovery.recoveryTarget.targetTime))).toBe(false);
  });

  it('archives the restored cluster under a new server name, so its WAL never mixes with the lost one', () => {
    expect(restored.spec.backup.barmanObjectStore.serverName).not.toBe(production.metadata.name);
    expect(restored.spec.backup.barmanObjectStore.destinationPath).toBe(production.spec.backup.barmanObjectStore.destinationPath);
  });

  it('changes nothing else of production: the processes find the same Secret and Service names', () => {
    const rest = (objects: Manifest[]) => objects.filter((o) => o.kind !== 'Cluster');
    expect(rest(overlays.restore)).toEqual(rest(overlays.production));
    const { bootstrap: _a, externalClusters: _b, backup: _c, ...restoredSpec } = restored.spec;
    const { bootstrap: _d, backup: _e, ...productionSpec } = production.spec;
    expect(restoredSpec).toEqual(productionSpec);
  });
});

describe.each(['staging', 'production'] as const)('the public APIs over TLS (%s)', (name) => {
  const objects = overlays[name];
  const ingress = find(objects, 'Ingress', 'holdfast-public');
  const config = find<{ data: Record<string, string> }>(objects, 'ConfigMap', 'payments-service-config').data;

  it('routes the host of each API public URL to its Service, each host under TLS', () => {
    const hosts = {
      'payments-service': new URL(config.PAYMENTS_PUBLIC_URL as string).host,
      'workspace-service': new URL(config.PAYMENTS_WORKSPACE_API_URL as string).host,
    };
    expect(ingress.spec.ingressClassName).toBe('nginx');
    expect(ingress.spec.rules).toEqual(
      Object.entries(hosts).map(([service, host]) => ({
        host,
        http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: service, port: { name: 'http' } } } }] },
      })),
    );
    const tlsHosts = ingress.spec.tls.flatMap((t: { hosts: string[]; secretName: string }) => {
      expect(t.secretName).toMatch(/-tls$/);
      return t.hosts;
    });
    expect(tlsHosts.sort()).toEqual(Object.values(hosts).sort());
    expect(ingress.metadata.annotations?.['nginx.ingress.kubernetes.io/force-ssl-redirect']).toBe('true');
    for (const service of Object.keys(hosts)) {
      const ports = find(objects, 'Service', service).spec.ports as { name: string }[];
      expect(ports.map((p) => p.name)).toContain('http');
    }
  });

  it('exposes neither the dispatcher nor the indexer', () => {
    const backends = objects
      .filter((o) => o.kind === 'Ingress')
      .flatMap((o) => (o.spec as { rules: { http: { paths: { backend: { service: { name: string } } }[] } }[] }).rules)
      .flatMap((r) => r.http.paths.map((p) => p.backend.service.name));
    expect(backends).not.toContain('webhook-dispatcher');
    expect(backends).not.toContain('chain-indexer');
  });
});

describe('Prometheus Operator objects', () => {
  const objects = overlays.production;

  it("a PodMonitor scrapes /metrics on the metrics port (METRICS_PORT) of exactly the four processes' pods", () => {
    const monitor = find(objects, 'PodMonitor', 'holdfast');
    interface PodTemplate {
      spec: {
        template: {
          metadata: { labels: Record<string, string> };
          spec: { containers: { ports: { name: string; containerPort: number }[] }[] };
        };
      };
    }
    const deployments = objects
      .filter((o) => o.kind === 'Deployment')
      .map((o) => o as Manifest & PodTemplate)
      .filter((d) => selects(monitor.spec.selector, d.spec.template.metadata.labels));
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([...PROCESSES].sort());
    expect(monitor.spec.podMetricsEndpoints).toEqual([{ port: 'metrics', path: '/metrics', interval: '30s', scrapeTimeout: '10s' }]);
    const config = find<Manifest & { data: Record<string, string> }>(objects, 'ConfigMap', 'holdfast-config');
    const metricsPort = Number(config.data.METRICS_PORT);
    expect(metricsPort).toBeGreaterThan(0);
    for (const deployment of deployments) {
      const ports = deployment.spec.template.spec.containers[0]?.ports ?? [];
      expect(ports.find((p) => p.name === 'metrics')?.containerPort, deployment.metadata.name).toBe(metricsPort);
    }
    // No Service exposes the metrics port: only the pods are scraped.
    for (const service of objects.filter((o) => o.kind === 'Service')) {
      expect((service.spec as { ports: { port: number }[] }).ports.map((p) => p.port)).not.toContain(metricsPort);
    }
    // The PostgreSQL exporter through the operator's own PodMonitor.
    expect(find(objects, 'Cluster', 'holdfast-db').spec.monitoring).toEqual({ enablePodMonitor: true });
  });

  it('the PrometheusRule is generated from infra/observability/prometheus/alerts.yml and up to date', () => {
    expect(readFileSync(PROMETHEUS_RULE_FILE, 'utf8'), 'run `pnpm --filter @holdfast/k8s prometheus-rule`').toBe(prometheusRuleText());
    const alerts = parse(readFileSync(kustomizationDir('..', 'observability', 'prometheus', 'alerts.yml'), 'utf8'));
    expect(find(objects, 'PrometheusRule', 'holdfast').spec.groups).toEqual(alerts.groups);
  });
});

describe.each(['staging', 'production'] as const)('the migrations run before the processes (%s)', (name) => {
  const objects = overlays[name];
  const wave = (o: Manifest) => Number(o.metadata.annotations?.['argocd.argoproj.io/sync-wave'] ?? 0);
  const jobs = objects.filter((o) => o.kind === 'Job');

  it('Argo CD: what the Jobs need in wave -2, the Jobs as Sync hooks in wave -1, the processes after', () => {
    // The migrations and the NATS setup (streams and durable consumers, ADR 54).
    expect(jobs.map((j) => j.metadata.name).sort()).toEqual([...PROCESSES.map((p) => `${p}-migrate`), 'nats-setup'].sort());
    for (const job of jobs) {
      expect(job.metadata.annotations).toMatchObject({ 'argocd.argoproj.io/hook': 'Sync', 'argocd.argoproj.io/sync-wave': '-1' });
      const pod = (
        job.spec as { template: { spec: { serviceAccountName: string; containers: { envFrom: { configMapRef: { name: string } }[] }[] } } }
      ).template.spec;
      const needs = [
        find(objects, 'ServiceAccount', pod.serviceAccountName),
        ...(job.metadata.name === 'nats-setup' ? [] : [find(objects, 'Cluster', 'holdfast-db')]),
        ...pod.containers.flatMap((c) => c.envFrom.map((e) => find(objects, 'ConfigMap', e.configMapRef.name))),
      ];
      for (const need of needs) expect(wave(need), `${need.kind}/${need.metadata.name}`).toBeLessThan(wave(job));
    }
    for (const process of PROCESSES) expect(wave(find(objects, 'Deployment', process))).toBeGreaterThan(-1);
  });

  it('kubectl: the first apply of docs/scaling.md (its label selector) takes every Job and what they need, no process', () => {
    const scaling = readFileSync(kustomizationDir('..', '..', 'docs', 'scaling.md'), 'utf8');
    const selector = /kubectl apply -k \S+ -l '([^']+)'/.exec(scaling)?.[1];
    expect(selector).toBe('app.kubernetes.io/component notin (api,worker)');
    const [key, values] = /^(\S+) notin \(([^)]+)\)$/.exec(selector as string)?.slice(1) ?? [];
    const first = objects.filter((o) =>
      selects({ matchExpressions: [{ key: key as string, operator: 'NotIn', values: (values as string).split(',') }] }, o.metadata.labels),
    );
    for (const job of jobs) expect(first).toContain(job);
    expect(first.filter((o) => o.kind === 'Deployment' && PROCESSES.includes(o.metadata.name))).toEqual([]);
    // Every process is labelled api or worker, or the first apply would start it before its migration.
    for (const process of PROCESSES)
      expect(['api', 'worker']).toContain(find(objects, 'Deployment', process).metadata.labels?.['app.kubernetes.io/component']);
  });
});

describe('pinning a release digests (src/pin-images.ts)', () => {
  it('sets each image digest and tag in an overlay; kubectl kustomize renders name:tag@digest', () => {
    const dir = mkdtempSync(join(tmpdir(), 'holdfast-pin-'));
    cpSync(kustomizationDir(), dir, { recursive: true, filter: (source) => !source.includes('node_modules') });
    const digest = `sha256:${'ab'.repeat(32)}`;
    pinImages(join(dir, 'overlays', 'staging'), [{ name: 'payments-service', digest }], '0.2.0');
    const deployment = find(render(join(dir, 'overlays', 'staging')), 'Deployment', 'payments-service');
    expect(deployment.spec.template.spec.containers[0].image).toBe(`registry.holdfast.example/holdfast/payments-service:0.2.0@${digest}`);
    expect(readFileSync(join(dir, 'overlays', 'staging', 'kustomization.yaml'), 'utf8')).toContain('# Each image by the digest');
    expect(() => pinImages(join(dir, 'overlays', 'staging'), [{ name: 'payments-service', digest: 'sha256:1234' }])).toThrow(
      /not a sha256 digest/,
    );
  });
});

describe.each(['staging', 'production'] as const)('every workload, Redis included (%s)', (name) => {
  const workloads = overlays[name].filter((o) => o.kind === 'Deployment' || o.kind === 'Job');

  it('runs non-root, read-only, without privilege escalation, with requests and a memory limit; Deployments probed', () => {
    // Four Deployments, Redis, four migration Jobs and the NATS setup Job.
    expect(workloads.length).toBe(10);
    for (const workload of workloads) {
      // biome-ignore lint/suspicious/noExplicitAny: rendered YAML, each field asserted by its path below
      const pod = (workload.spec as { template: { spec: Record<string, any> } }).template.spec;
      const label = `${workload.kind}/${workload.metadata.name}`;
      expect(pod.securityContext, label).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      expect(pod.securityContext.runAsUser, label).toBeGreaterThan(0);
      expect(pod.automountServiceAccountToken, label).toBe(false);
      for (const container of pod.containers) {
        expect(container.securityContext, label).toMatchObject({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
        expect(container.resources.requests, label).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
        expect(container.resources.limits.memory, label).toEqual(expect.any(String));
        if (workload.kind === 'Deployment') {
          expect(container.readinessProbe, label).toBeDefined();
          expect(container.livenessProbe, label).toBeDefined();
        }
      }
    }
  });
});
