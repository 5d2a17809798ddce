import { randomBytes } from 'node:crypto';
import {
  BROADCASTS,
  DURABLE_CONSUMERS,
  INDEXER_COMMANDS,
  PAYMENTS_EVENTS,
  STREAMS,
  type StreamName,
  WebhookCommands,
  webhookCommandOf,
} from '@holdfast/contracts';

/**
 * NATS is a trust boundary: each process connects as its own user, allowed only the subjects it
 * publishes and subscribes. This is the one description of those grants; `infra/nats/nats.conf`
 * is rendered from it (a test keeps the two equal) and the test stack runs nats-server with it.
 * `nats-setup` is the NATS setup's user (bundle/nats-setup.js, run before the processes as
 * migrations are): the only one that creates and updates streams and durable consumers.
 */
export const NATS_SERVICES = ['payments-service', 'workspace-service', 'webhook-dispatcher', 'chain-indexer', 'nats-setup'] as const;
export type NatsService = (typeof NATS_SERVICES)[number];

interface Grants {
  /** Core subjects (before the deployment prefix) the process publishes: events, commands it sends, broadcasts. */
  publish: string[];
  /** Core subjects it subscribes to: the commands it serves, broadcasts. */
  subscribe: string[];
  /** Streams it reads in order with ephemeral consumers of its own (followStream), never another's durable. */
  follows: StreamName[];
}

/**
 * Who talks to whom (architecture: commands between services, EVENTS from the outboxes, CHAIN from
 * the indexer). The durable consumers each process reads are DURABLE_CONSUMERS' (their `owner`).
 */
export const NATS_GRANTS: Record<NatsService, Grants> = {
  'payments-service': {
    // Its own domain events only (EVENT_PUBLISHERS): the one publisher the dispatcher believes.
    // The indexer's contract lookup only: payments asks which escrows are Holdfast's, never registers one.
    // Webhook commands of platform-owned subscriptions only (the dispatcher checks owner against subject).
    publish: [
      PAYMENTS_EVENTS,
      'cmd.webhooks.platform.>',
      INDEXER_COMMANDS.lookupContract.subject,
      `${BROADCASTS.paymentsCredentialRevoked}`,
    ],
    subscribe: ['cmd.payments.>', `${BROADCASTS.paymentsCredentialRevoked}`],
    // The platforms' event stream (GET /api/v2/events).
    follows: ['EVENTS'],
  },
  'workspace-service': {
    // No domain events: it publishes none, and one it could publish would be signed and delivered as payments'.
    // Its workspaces' webhook commands, and the deactivation of a platform's subscriptions once
    // payments answered that the platform is the workspace's (a deleted workspace, a revoked credential).
    publish: [
      'cmd.payments.>',
      'cmd.webhooks.workspace.>',
      webhookCommandOf(WebhookCommands.deactivateOwner, 'platform').subject,
      'cmd.chain-indexer.>',
    ],
    subscribe: [],
    follows: [],
  },
  'webhook-dispatcher': { publish: [], subscribe: ['cmd.webhooks.>'], follows: [] },
  'chain-indexer': { publish: ['chain.>'], subscribe: ['cmd.chain-indexer.>'], follows: [] },
  'nats-setup': { publish: [], subscribe: [], follows: [] },
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
    'nats-setup': 'SETUP',
  };
  return `HOLDFAST_NATS_${short[service]}_PASSWORD`;
}

export interface NatsPermissions {
  publish: string[];
  /** Subjects refused although `publish` allows them (another process's durable consumers). */
  publishDeny: string[];
  subscribe: string[];
}

/**
 * The subjects of one process under a deployment prefix (`''` in production, `staging.`). Stream
 * and consumer names are the prefixed ones (dots become underscores), so each grant names its own.
 */
export function natsPermissions(service: NatsService, prefix: string): NatsPermissions {
  const grants = NATS_GRANTS[service];
  const under = (subjects: string[]) => subjects.map((s) => `${prefix}${s}`);
  const named = (name: string) => `${prefix}${name}`.replaceAll('.', '_');
  const stream = (key: StreamName) => named(STREAMS[key].name);
  const durables = Object.values(DURABLE_CONSUMERS);
  if (service === 'nats-setup') {
    return {
      publish: [
        '$JS.API.INFO',
        ...(Object.keys(STREAMS) as StreamName[]).flatMap((key) =>
          ['INFO', 'CREATE', 'UPDATE'].map((verb) => `$JS.API.STREAM.${verb}.${stream(key)}`),
        ),
        ...durables.flatMap((d) => {
          const [s, c] = [stream(d.stream), named(d.name)];
          return [
            `$JS.API.CONSUMER.INFO.${s}.${c}`,
            `$JS.API.CONSUMER.DURABLE.CREATE.${s}.${c}`,
            `$JS.API.CONSUMER.CREATE.${s}.${c}`,
            `$JS.API.CONSUMER.CREATE.${s}.${c}.>`,
          ];
        }),
      ],
      publishDeny: [],
      subscribe: [`${inboxPrefixOf(service)}.>`],
    };
  }
  const own = durables.filter((d) => d.owner === service);
  // An ephemeral consumer is created under a name of the client's choosing (`oc_…`): any name on the
  // followed stream but those of the durable consumers there, which it could otherwise update, read or delete.
  const foreign = durables.filter((d) => grants.follows.includes(d.stream));
  return {
    publish: [
      ...under(grants.publish),
      // JetStream: the account check at start, then only reading its own durable consumers and acking their messages.
      '$JS.API.INFO',
      ...own.flatMap((d) => {
        const [s, c] = [stream(d.stream), named(d.name)];
        return [`$JS.API.CONSUMER.INFO.${s}.${c}`, `$JS.API.CONSUMER.MSG.NEXT.${s}.${c}`, `$JS.ACK.${s}.${c}.>`];
      }),
      ...grants.follows.flatMap((key) => {
        const s = stream(key);
        return [
          `$JS.API.STREAM.INFO.${s}`,
          `$JS.API.CONSUMER.CREATE.${s}.*.>`,
          `$JS.API.CONSUMER.INFO.${s}.*`,
          `$JS.API.CONSUMER.DELETE.${s}.*`,
          `$JS.API.CONSUMER.MSG.NEXT.${s}.*`,
          `$JS.ACK.${s}.*.>`,
        ];
      }),
    ],
    publishDeny: foreign.flatMap((d) => {
      const [s, c] = [stream(d.stream), named(d.name)];
      return [
        `$JS.API.CONSUMER.CREATE.${s}.${c}.>`,
        `$JS.API.CONSUMER.DELETE.${s}.${c}`,
        `$JS.API.CONSUMER.MSG.NEXT.${s}.${c}`,
        `$JS.ACK.${s}.${c}.>`,
      ];
    }),
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
      `        publish: { allow: ${list(p.publish)}${p.publishDeny.length > 0 ? `, deny: ${list(p.publishDeny)}` : ''} }`,
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
