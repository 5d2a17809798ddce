/**
 * Holdfast's Grafana dashboards, as code: one per process and one for the money in flight. The
 * JSON under grafana/dashboards/ is written from here (`node src/dashboards.ts --write`) and a
 * test keeps the two equal, so an operator imports files that were checked: every metric a panel
 * names is on the running processes' /metrics (test/metrics.test.ts).
 */
import { writeFileSync } from 'node:fs';

interface Target {
  expr: string;
  legendFormat: string;
}
interface Panel {
  title: string;
  description: string;
  type: 'timeseries' | 'stat';
  unit: string;
  targets: Target[];
}
export interface DashboardSpec {
  /** File name and Grafana uid. */
  uid: string;
  title: string;
  description: string;
  /** The process whose /metrics every panel reads (money-in-flight reads several). */
  services: readonly string[];
  panels: Panel[];
}

const t = (expr: string, legendFormat = ''): Target => ({ expr, legendFormat });
const series = (title: string, description: string, unit: string, ...targets: Target[]): Panel => ({
  title,
  description,
  type: 'timeseries',
  unit,
  targets,
});
const stat = (title: string, description: string, unit: string, ...targets: Target[]): Panel => ({
  title,
  description,
  type: 'stat',
  unit,
  targets,
});

/** The HTTP and Node.js panels every process has (http-kit's histogram, prom-client's defaults). */
function processPanels(service: string): Panel[] {
  const s = `service="${service}"`;
  return [
    series(
      'Requests by route',
      'Answers per second by route pattern and status',
      'reqps',
      t(`sum by (route, status_code) (rate(http_request_duration_seconds_count{${s}}[5m]))`, '{{route}} {{status_code}}'),
    ),
    series(
      'Share of 5xx answers',
      'SLO: 99.9 % are not a 5xx (prometheus/alerts.yml)',
      'percentunit',
      t(
        `sum(rate(http_request_duration_seconds_count{${s},status_code=~"5.."}[5m])) / sum(rate(http_request_duration_seconds_count{${s}}[5m]))`,
        '5xx',
      ),
    ),
    series(
      'Latency p50 / p99',
      'SLO: 99 % of answers within 250 ms',
      's',
      t(`histogram_quantile(0.5, sum by (le) (rate(http_request_duration_seconds_bucket{${s}}[5m])))`, 'p50'),
      t(`histogram_quantile(0.99, sum by (le) (rate(http_request_duration_seconds_bucket{${s}}[5m])))`, 'p99'),
    ),
    series(
      'Event loop lag p99',
      'Above ~100 ms the process is CPU-bound',
      's',
      t(`max by (instance) (nodejs_eventloop_lag_p99_seconds{${s}})`, '{{instance}}'),
    ),
    series(
      'Memory',
      'Resident set and V8 heap in use per instance',
      'bytes',
      t(`max by (instance) (process_resident_memory_bytes{${s}})`, 'rss {{instance}}'),
      t(`max by (instance) (nodejs_heap_size_used_bytes{${s}})`, 'heap {{instance}}'),
    ),
  ];
}

export const DASHBOARDS: readonly DashboardSpec[] = [
  {
    uid: 'holdfast-payments-service',
    title: 'Holdfast / payments-service',
    description: 'The Payments API, settlement, the relayer and reconciliation',
    services: ['payments-service'],
    panels: [
      ...processPanels('payments-service'),
      series(
        'CHAIN events by outcome',
        'rejected or conflict: a payment needs a look (docs/settlement.md)',
        'ops',
        t('sum by (kind, outcome) (rate(payments_chain_events_total[5m]))', '{{kind}} {{outcome}}'),
      ),
      series(
        'On-chain instructions by status',
        "The attester's worker: pending/sending owed, failed/superseded need an operator",
        'short',
        t('max by (status) (payments_settlements)', '{{status}}'),
      ),
      series(
        'Relayed fundings by status',
        'submitted growing: the chain is slow or the fees too low',
        'short',
        t('max by (status) (payments_relayed_locks)', '{{status}}'),
      ),
      series(
        'Commands owed to other processes',
        'dead: refused for good, needs a look',
        'short',
        t('max by (status) (payments_remote_tasks)', '{{status}}'),
      ),
      series(
        'Reconciliation',
        'Open differences between the books and the escrow contract, and repairs',
        'short',
        t('max by (kind) (payments_reconciliation_mismatches)', 'open {{kind}}'),
        t('sum(increase(payments_reconciliation_repairs_total[1h]))', 'repairs / h'),
      ),
      series(
        'Rate-limit store errors',
        'Redis unreachable: the limits fall back to memory per instance',
        'ops',
        t('sum(rate(holdfast_rate_limit_store_errors_total{service="payments-service"}[5m]))', 'errors'),
      ),
    ],
  },
  {
    uid: 'holdfast-workspace-service',
    title: 'Holdfast / workspace-service',
    description: 'The Workspace API, its sessions and its commands to payments and the dispatcher',
    services: ['workspace-service'],
    panels: [
      ...processPanels('workspace-service'),
      series(
        'Commands owed to other processes',
        'dead: refused for good, needs a look',
        'short',
        t('max by (status) (workspace_remote_tasks)', '{{status}}'),
      ),
      series(
        'Rate-limit store errors',
        'Redis unreachable: the limits fall back to memory per instance',
        'ops',
        t('sum(rate(holdfast_rate_limit_store_errors_total{service="workspace-service"}[5m]))', 'errors'),
      ),
    ],
  },
  {
    uid: 'holdfast-webhook-dispatcher',
    title: 'Holdfast / webhook-dispatcher',
    description: 'Webhook deliveries: attempts, backlog, retries exhausted and circuits',
    services: ['webhook-dispatcher'],
    panels: [
      ...processPanels('webhook-dispatcher'),
      series(
        'Attempts by outcome',
        'Delivery attempts per second',
        'ops',
        t('sum by (outcome) (rate(webhook_delivery_attempts_total[5m]))', '{{outcome}}'),
      ),
      series(
        'Attempt duration p99',
        "The receivers' answer time",
        's',
        t('histogram_quantile(0.99, sum by (le) (rate(webhook_delivery_attempt_duration_seconds_bucket[5m])))', 'p99'),
      ),
      series(
        'Backlog and in flight',
        'Waiting deliveries (all instances) and attempts in flight per instance',
        'short',
        t('max(webhook_deliveries_pending)', 'waiting'),
        t('sum(webhook_deliveries_in_flight)', 'in flight'),
      ),
      series(
        'Retries exhausted',
        'Deliveries that failed for good (the platform must replay them)',
        'short',
        t('sum(increase(webhook_deliveries_exhausted_total[1h]))', 'per hour'),
      ),
      series(
        'Subscriptions by circuit',
        'OPEN: attempts paused after repeated failures; HALF_OPEN: one trial',
        'short',
        t('max by (state) (webhook_subscriptions_by_circuit)', '{{state}}'),
      ),
    ],
  },
  {
    uid: 'holdfast-chain-indexer',
    title: 'Holdfast / chain-indexer',
    description: 'Reading the chain: head, cursor, lag, leadership, reorgs',
    services: ['chain-indexer'],
    panels: [
      ...processPanels('chain-indexer'),
      series(
        'Lag behind the head',
        "Blocks between the RPC's head and the leader's cursor, per network",
        'short',
        t(
          'max by (network) ((chain_indexer_head_block - chain_indexer_cursor_block) * on (instance, network) group_left () (chain_indexer_leader == 1))',
          '{{network}}',
        ),
      ),
      series(
        'Leader and head subscription',
        '1 where this instance leads the network / its newHeads subscription is live',
        'short',
        t('max by (network, instance) (chain_indexer_leader)', 'leader {{network}} {{instance}}'),
        t('max by (network, instance) (chain_indexer_head_subscription)', 'subscribed {{network}} {{instance}}'),
      ),
      series(
        'Blocks read and events published',
        'Per second, per network and kind',
        'ops',
        t('sum by (network) (rate(chain_indexer_blocks_read_total[5m]))', 'blocks {{network}}'),
        t('sum by (network, kind) (rate(chain_indexer_events_published_total[5m]))', '{{kind}} {{network}}'),
      ),
      series(
        'Reorgs, corrections, errors',
        'Per hour, per network',
        'short',
        t('sum by (network) (increase(chain_indexer_reorgs_total[1h]))', 'reorgs {{network}}'),
        t('sum by (network, reason) (increase(chain_indexer_corrections_published_total[1h]))', 'corrections {{reason}}'),
        t('sum by (network) (increase(chain_indexer_errors_total[1h]))', 'errors {{network}}'),
        t('sum by (network) (increase(chain_indexer_undecodable_logs_total[1h]))', 'undecodable {{network}}'),
        t('sum by (network) (increase(chain_indexer_duplicate_publishes_total[1h]))', 'duplicates {{network}}'),
      ),
    ],
  },
  {
    uid: 'holdfast-money-in-flight',
    title: 'Holdfast / money in flight',
    description: 'Where the money stands: transactions by state and age, escrows at risk, webhooks, the chain, the relayer',
    services: ['payments-service', 'webhook-dispatcher', 'chain-indexer'],
    panels: [
      series(
        'Transactions by state',
        'Not yet at a terminal state (completed, failed, refunded, rescinded)',
        'short',
        t('max by (status) (payments_transactions_in_flight)', '{{status}}'),
      ),
      series(
        'Oldest at each state',
        'Seconds the oldest transaction has been at its state',
        's',
        t('max by (status) (payments_transactions_oldest_age_seconds)', '{{status}}'),
      ),
      stat(
        'Escrows at risk',
        'Held after their hold deadline: a release or refund (or a dispute decision) is owed before the escrow expires',
        'short',
        t('sum(max by (status) (payments_escrows_past_hold))', 'past hold'),
      ),
      stat(
        'Instructions needing an operator',
        'failed or superseded on-chain instructions',
        'short',
        t('sum(max by (status) (payments_settlements{status=~"failed|superseded"}))', 'need an operator'),
      ),
      stat(
        'Books against the chain',
        'Open reconciliation differences',
        'short',
        t('sum(max by (kind) (payments_reconciliation_mismatches))', 'open'),
      ),
      series(
        'Webhook backlog and circuits',
        'Waiting deliveries; subscriptions with an open circuit',
        'short',
        t('max(webhook_deliveries_pending)', 'waiting'),
        t('max(webhook_subscriptions_by_circuit{state="OPEN"})', 'open circuits'),
      ),
      series(
        'Indexer lag per network',
        "Blocks between the head and the leader's cursor",
        'short',
        t(
          'max by (network) ((chain_indexer_head_block - chain_indexer_cursor_block) * on (instance, network) group_left () (chain_indexer_leader == 1))',
          '{{network}}',
        ),
      ),
      series(
        'Relayer balance',
        "The relayer key's balance beside RELAYER_MIN_BALANCE_WEI, per network",
        'short',
        t('max by (network) (payments_relayer_balance_wei) / 1e18', 'ETH {{network}}'),
        t('max by (network) (payments_relayer_min_balance_wei) / 1e18', 'floor {{network}}'),
      ),
    ],
  },
];

/** The Grafana JSON model of one dashboard (schema 39: Grafana 10/11), with a data source variable. */
export function grafanaJson(spec: DashboardSpec): object {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's own variable syntax (the dashboard asks for its data source)
  const datasource = { type: 'prometheus', uid: '${datasource}' };
  return {
    uid: spec.uid,
    title: spec.title,
    description: spec.description,
    tags: ['holdfast'],
    timezone: 'utc',
    schemaVersion: 39,
    version: 1,
    editable: true,
    refresh: '30s',
    time: { from: 'now-6h', to: 'now' },
    templating: {
      list: [{ name: 'datasource', label: 'Prometheus', type: 'datasource', query: 'prometheus', current: {}, hide: 0 }],
    },
    panels: spec.panels.map((panel, i) => ({
      id: i + 1,
      type: panel.type,
      title: panel.title,
      description: panel.description,
      datasource,
      gridPos: { h: 8, w: 12, x: (i % 2) * 12, y: Math.floor(i / 2) * 8 },
      fieldConfig: { defaults: { unit: panel.unit }, overrides: [] },
      options:
        panel.type === 'stat' ? { reduceOptions: { calcs: ['lastNotNull'] } } : { legend: { displayMode: 'list', placement: 'bottom' } },
      targets: panel.targets.map((target, j) => ({
        refId: String.fromCharCode(65 + j),
        datasource,
        expr: target.expr,
        legendFormat: target.legendFormat,
      })),
    })),
  };
}

export function dashboardFile(spec: DashboardSpec): string {
  return `${JSON.stringify(grafanaJson(spec), null, 2)}\n`;
}

if (process.argv.includes('--write')) {
  for (const spec of DASHBOARDS) writeFileSync(new URL(`../grafana/dashboards/${spec.uid}.json`, import.meta.url), dashboardFile(spec));
}
