import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DASHBOARDS, dashboardFile } from '../src/dashboards.js';
import { metricNames } from '../src/promql.js';

const here = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));
// ./scripts/test installs Debian's prometheus package for promtool when it is missing (as it does chromium).
const promtool = process.env.HOLDFAST_PROMTOOL ?? 'promtool';

function run(args: string[]): string {
  try {
    return execFileSync(promtool, args, { cwd: here('prometheus'), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`promtool ${args.join(' ')} failed: ${e.stdout ?? ''}${e.stderr ?? e.message}`);
  }
}

interface RuleGroup {
  name: string;
  rules: { alert?: string; record?: string; expr: string; labels?: Record<string, string>; annotations?: Record<string, string> }[];
}
const groups = (parse(readFileSync(here('prometheus/alerts.yml'), 'utf8')) as { groups: RuleGroup[] }).groups;
const rules = groups.flatMap((g) => g.rules);

describe('alert rules', () => {
  it('pass promtool check rules', () => {
    expect(run(['check', 'rules', 'alerts.yml'])).toMatch(/SUCCESS: \d+ rules found/);
  });

  it("pass promtool's unit tests, and every alert has one", () => {
    expect(run(['test', 'rules', 'alerts.test.yml'])).toContain('SUCCESS');
    const tested = readFileSync(here('prometheus/alerts.test.yml'), 'utf8');
    for (const rule of rules.filter((r) => r.alert)) expect(tested, `${rule.alert} has a unit test`).toContain(`alertname: ${rule.alert}`);
  });

  it('each alert says how bad it is and where its runbook is', () => {
    for (const rule of rules.filter((r) => r.alert)) {
      expect(['page', 'ticket', 'info'], rule.alert).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary, rule.alert).toBeTruthy();
      expect(rule.annotations?.runbook, rule.alert).toMatch(/^docs\/[a-z-]+\.md/);
    }
  });

  it('reads recorded series only where a rule records them', () => {
    const recorded = new Set(rules.flatMap((r) => (r.record ? [r.record] : [])));
    for (const rule of rules) {
      for (const name of metricNames(rule.expr).filter((n) => n.includes(':'))) expect(recorded, `${name} in ${rule.expr}`).toContain(name);
    }
  });
});

describe('dashboards', () => {
  it('are the files written from src/dashboards.ts (node src/dashboards.ts --write)', () => {
    for (const spec of DASHBOARDS) {
      expect(readFileSync(here(`grafana/dashboards/${spec.uid}.json`), 'utf8'), spec.uid).toBe(dashboardFile(spec));
    }
  });

  it('have unique uids, and every panel queries something with a unit', () => {
    expect(new Set(DASHBOARDS.map((d) => d.uid)).size).toBe(DASHBOARDS.length);
    for (const spec of DASHBOARDS) {
      for (const panel of spec.panels) {
        expect(panel.targets.length, `${spec.uid}: ${panel.title}`).toBeGreaterThan(0);
        expect(panel.unit, `${spec.uid}: ${panel.title}`).toBeTruthy();
        for (const target of panel.targets) expect(metricNames(target.expr).length, target.expr).toBeGreaterThan(0);
      }
    }
  });

  it('cover each process, plus the money in flight', () => {
    const covered = new Set(DASHBOARDS.flatMap((d) => (d.services.length === 1 ? d.services : [])));
    expect([...covered].sort()).toEqual(['chain-indexer', 'payments-service', 'webhook-dispatcher', 'workspace-service']);
    expect(DASHBOARDS.map((d) => d.uid)).toContain('holdfast-money-in-flight');
  });
});

describe('metricNames', () => {
  it('finds metrics, not functions, labels, keywords or numbers', () => {
    expect(
      metricNames(
        'max by (network) ((a_head - b_cursor) * on (instance, network) group_left () (c_leader == 1)) > 100 and sum(rate(d_total{x="y z"}[5m])) / 1e18',
      ),
    ).toEqual(['a_head', 'b_cursor', 'c_leader', 'd_total']);
    expect(metricNames('service:http_errors:ratio_rate1h > (14.4 * 0.001)')).toEqual(['service:http_errors:ratio_rate1h']);
  });
});
