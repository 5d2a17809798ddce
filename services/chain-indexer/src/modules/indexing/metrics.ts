import { Counter, Gauge, type Registry } from 'prom-client';

/** The indexer's Prometheus metrics, labelled by network (docs/operations.md lists them). */
export function createIndexerMetrics(registry: Registry) {
  const registers = [registry];
  return {
    leader: new Gauge({
      name: 'chain_indexer_leader',
      help: '1 while this instance holds the network lease and follows it, 0 while it stands by',
      labelNames: ['network'],
      registers,
    }),
    headSubscription: new Gauge({
      name: 'chain_indexer_head_subscription',
      help: '1 while new heads arrive by subscription (eth_subscribe newHeads), 0 while the indexer only polls',
      labelNames: ['network'],
      registers,
    }),
    head: new Gauge({ name: 'chain_indexer_head_block', help: 'Latest block number the RPC reported', labelNames: ['network'], registers }),
    cursor: new Gauge({
      name: 'chain_indexer_cursor_block',
      help: 'Last block whose events JetStream acknowledged',
      labelNames: ['network'],
      registers,
    }),
    blocksRead: new Counter({
      name: 'chain_indexer_blocks_read_total',
      help: 'Blocks read and committed (in ranges of eth_getLogs)',
      labelNames: ['network'],
      registers,
    }),
    published: new Counter({
      name: 'chain_indexer_events_published_total',
      help: 'Events published to the CHAIN stream (acknowledged), by kind',
      labelNames: ['network', 'kind'],
      registers,
    }),
    duplicates: new Counter({
      name: 'chain_indexer_duplicate_publishes_total',
      help: 'Publishes JetStream dropped as duplicates (a range re-read after a crash)',
      labelNames: ['network'],
      registers,
    }),
    corrections: new Counter({
      name: 'chain_indexer_corrections_published_total',
      help: 'Corrections (removed: true) published, by reason',
      labelNames: ['network', 'reason'],
      registers,
    }),
    levelsRaised: new Counter({
      name: 'chain_indexer_levels_raised_total',
      help: 'Events published again because their block reached a higher finality level, by the new level',
      labelNames: ['network', 'finality'],
      registers,
    }),
    reorgs: new Counter({
      name: 'chain_indexer_reorgs_total',
      help: 'Reorgs handled (cursor rolled back)',
      labelNames: ['network'],
      registers,
    }),
    undecodable: new Counter({
      name: 'chain_indexer_undecodable_logs_total',
      help: 'Logs at an escrow address that are not escrow events as we know them (skipped, never published)',
      labelNames: ['network'],
      registers,
    }),
    errors: new Counter({
      name: 'chain_indexer_errors_total',
      help: 'Failed indexing steps (RPC, NATS or PostgreSQL unavailable); each is retried',
      labelNames: ['network'],
      registers,
    }),
  };
}

export type IndexerMetrics = ReturnType<typeof createIndexerMetrics>;
