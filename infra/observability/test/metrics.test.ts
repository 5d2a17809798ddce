import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type RunningProcesses, type ServiceName, startServiceProcesses } from '@holdfast/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DASHBOARDS } from '../src/dashboards.js';
import { exportedName, metricNames } from '../src/promql.js';

const SERVICES: ServiceName[] = ['payments-service', 'workspace-service', 'webhook-dispatcher', 'chain-indexer'];

let running: RunningProcesses;
/** The metric names each process's /metrics declares (`# TYPE` lines: a labelled metric is declared before its first sample). */
const exported = new Map<string, Set<string>>();

beforeAll(async () => {
  running = await startServiceProcesses({ services: SERVICES });
  for (const service of SERVICES) {
    const response = await fetch(`${running.urls[service]}/metrics`);
    expect(response.status).toBe(200);
    const text = await response.text();
    exported.set(service, new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!)));
  }
});
afterAll(() => running?.stop());

describe('every metric an alert or a panel names is on the running processes', () => {
  it('the alert rules', () => {
    const all = new Set(SERVICES.flatMap((s) => [...exported.get(s)!]));
    const file = fileURLToPath(new URL('../prometheus/alerts.yml', import.meta.url));
    const rules = (parse(readFileSync(file, 'utf8')) as { groups: { rules: { expr: string }[] }[] }).groups.flatMap((g) => g.rules);
    const missing = rules
      .flatMap((r) => metricNames(r.expr))
      .filter((name) => !name.includes(':'))
      .filter((name) => !exportedName(name, all));
    expect(missing).toEqual([]);
  });

  for (const spec of DASHBOARDS) {
    it(`dashboard ${spec.uid}`, () => {
      const ofItsProcesses = new Set(spec.services.flatMap((s) => [...exported.get(s)!]));
      const missing = spec.panels
        .flatMap((p) => p.targets.flatMap((t) => metricNames(t.expr)))
        .filter((name) => !exportedName(name, ofItsProcesses));
      expect(missing).toEqual([]);
    });
  }
});
