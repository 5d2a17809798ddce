// base/prometheus-rule.yaml is generated from infra/observability/prometheus/alerts.yml (the rules
// promtool checks and unit-tests), so the cluster loads exactly those rules. Regenerate after
// changing alerts.yml with `pnpm --filter @holdfast/k8s prometheus-rule`; the manifests test fails
// while the two differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

const ALERTS = fileURLToPath(new URL('../../observability/prometheus/alerts.yml', import.meta.url));
export const PROMETHEUS_RULE_FILE = fileURLToPath(new URL('../base/prometheus-rule.yaml', import.meta.url));

const HEADER = `# Generated from infra/observability/prometheus/alerts.yml by infra/k8s/src/prometheus-rule.ts:
# do not edit; run \`pnpm --filter @holdfast/k8s prometheus-rule\` after changing alerts.yml.
`;

/** The text of base/prometheus-rule.yaml: the rule groups of alerts.yml in a PrometheusRule. */
export function prometheusRuleText(): string {
  const { groups } = parse(readFileSync(ALERTS, 'utf8')) as { groups: unknown[] };
  const rule = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'holdfast' },
    spec: { groups },
  };
  return HEADER + stringify(rule, { lineWidth: 0 });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeFileSync(PROMETHEUS_RULE_FILE, prometheusRuleText());
