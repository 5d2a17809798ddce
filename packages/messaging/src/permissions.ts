import { randomBytes } from 'node:crypto';
import { BROADCASTS, INDEXER_COMMANDS, PAYMENTS_EVENTS, STREAMS, type StreamName } from '@holdfast/contracts';

/**
 * NATS is a trust boundary: each process connects as its own user, allowed only the subjects it
 * publishes and subscribes. This is the one description of those grants; `infra/nats/nats.conf`
 * is rendered from it (a test keeps the two equal) and the test stack runs nats-server with it.
 */
export const NATS_SERVICES = ['payments-service', 'workspace-service', 'webhook-dispatcher', 'chain-indexer'] as const;
export type NatsService = (typeof NATS_SERVICES)[number];

interface Grants {
  /** Core subjects (before the deployment prefix) the process publishes: events, commands it sends, broadcasts. */
  publish: string[];
  /** Core subjects it subscribes to: the commands it serves, broadcasts. */
  subscribe: string[];
  /** Streams it reads with a consumer (JetStream API on their consumers, acks). */
  consumes: StreamName[];
}

/** Who talks to whom (architecture: commands between services, EVENTS from the outboxes, CHAIN from the indexer). */
export const NATS_GRANTS: Record<NatsService, Grants> = {
  'payments-service': {
    // The indexer's contract lookup only: payments asks which escrows are Holdfast's, never registers one.
    // Its own domain events only (EVENT_PUBLISHERS): the one publisher the dispatcher believes.
    publish: [PAYMENTS_EVENTS, 'cmd.webhooks.>', INDEXER_COMMANDS.lookupContract.subject, `${BROADCASTS.paymentsCredentialRevoked}`],
    subscribe: ['cmd.payments.>', `${BROADCASTS.paymentsCredentialRevoked}`],
    consumes: ['CHAIN', 'EVENTS'],
  },
  'workspace-service': {
    // No domain events: it publishes none, and one it could publish would be signed and delivered as payments'.
    publish: ['cmd.payments.>', 'cmd.webhooks.>', 'cmd.chain-indexer.>'],
    subscribe: [],
    consumes: ['EVENTS'],
  },
  'webhook-dispatcher': { publish: [], subscribe: ['cmd.webhooks.>'], consumes: ['EVENTS'] },
  'chain-indexer': { publish: ['chain.>'], subscribe: ['cmd.chain-indexer.>'], consumes: [] },
};

/** The inbox prefix of a process: its replies (commands, JetStream acks, pulled messages) arrive only there. */
export function inboxPrefixOf(service: string): string {
  return `_INBOX_${service.replaceAll(/[^A-Za-z0-9-]/g, '_')}`;
}

/**
 * A password for a process's NATS user. nats-server parses a `$VAR` value as configuration, so
 * one starting with digits can read as a number or a date ("20-ab…", "1D…" stop the server from
 * starting): every password starts with a letter.
 */
export function newNatsPassword(): string {
  return `p${randomBytes(18).toString('hex')}`;
}

/** The environment variable nats.conf reads each process's password from. */
export function natsPasswordVariable(service: NatsService): string {
  const short = {
    'payments-service': 'PAYMENTS',
    'workspace-service': 'WORKSPACE',
    'webhook-dispatcher': 'DISPATCHER',
    'chain-indexer': 'INDEXER',
  };
  return `HOLDFAST_NATS_${short[service]}_PASSWORD`;
}

export interface NatsPermissions {
  publish: string[];
  subscribe: string[];
}

/**
 * The subjects of one process under a deployment prefix: `''` in production, `staging.`, or `*`
 * for a NATS shared by runs that each pick their own prefix (tests): any one prefix token, or none.
 */
export function natsPermissions(service: NatsService, prefix: string): NatsPermissions {
  const grants = NATS_GRANTS[service];
  const subjectPrefixes = prefix === '*' ? ['', '*.'] : [prefix];
  const under = (subjects: string[]) => subjectPrefixes.flatMap((p) => subjects.map((s) => `${p}${s}`));
  const streamNames = (stream: StreamName) =>
    prefix === '*' ? [STREAMS[stream].name, '*'] : [`${prefix}${STREAMS[stream].name}`.replaceAll('.', '_')];
  const allStreams = (Object.keys(STREAMS) as StreamName[]).flatMap(streamNames);
  const consumed = [...new Set(grants.consumes.flatMap(streamNames))];
  return {
    publish: [
      ...under(grants.publish),
      // JetStream API: every process keeps the streams' settings up to date at start (ensureStreams).
      '$JS.API.INFO',
      ...[...new Set(allStreams)].flatMap((s) => [`$JS.API.STREAM.INFO.${s}`, `$JS.API.STREAM.CREATE.${s}`, `$JS.API.STREAM.UPDATE.${s}`]),
      // ... and the consumers of the streams it reads, and their acks.
      ...consumed.flatMap((s) => [
        `$JS.API.CONSUMER.*.${s}`,
        `$JS.API.CONSUMER.*.${s}.>`,
        `$JS.API.CONSUMER.DURABLE.CREATE.${s}.>`,
        `$JS.API.CONSUMER.MSG.NEXT.${s}.>`,
        `$JS.ACK.${s}.>`,
      ]),
    ],
    subscribe: [...under(grants.subscribe), `${inboxPrefixOf(service)}.>`],
  };
}

const list = (items: string[]) => `[${items.map((s) => JSON.stringify(s)).join(', ')}]`;

/**
 * nats.conf's authorization block: one user per process, its password from the environment
 * variable `natsPasswordVariable(service)` (resolved by nats-server at start), answers allowed
 * only to the requests it received (allow_responses). No anonymous access. `extraUsers` adds
 * lines verbatim (the test stack's own superuser).
 */
export function renderNatsAuthorization(prefix: string, extraUsers: string[] = []): string {
  const users = NATS_SERVICES.map((service) => {
    const p = natsPermissions(service, prefix);
    return [
      `    {`,
      `      user: ${JSON.stringify(service)}`,
      `      password: $${natsPasswordVariable(service)}`,
      `      permissions: {`,
      `        publish: { allow: ${list(p.publish)} }`,
      `        subscribe: { allow: ${list(p.subscribe)} }`,
      `        allow_responses: true`,
      `      }`,
      `    }`,
    ].join('\n');
  });
  return ['authorization {', '  users: [', ...users, ...extraUsers.map((u) => `    ${u}`), '  ]', '}'].join('\n');
}

/** infra/nats/authorization.conf, as committed: the production grants (no subject prefix). */
export function natsAuthorizationFile(): string {
  return [
    '# Generated from packages/messaging/src/permissions.ts by `node scripts/nats-config.ts`; do not edit.',
    '# One NATS user per Holdfast process, each allowed only its own subjects; no anonymous access.',
    '# The passwords come from the environment of nats-server (see docs/operations.md, "NATS").',
    renderNatsAuthorization(''),
    '',
  ].join('\n');
}
