import {
  EVENT_STREAM_HEARTBEAT_MS,
  EVENT_STREAM_PATH,
  EventStreamHeaders,
  EventStreamQuery,
  EventStreamResponse,
} from '../event-stream.js';
import { resource } from './define.js';

// events: the platform's events as server-sent events (docs/api/events-stream.md), beyond the spec's operations

const endpoint = resource({ tags: ['events'] });

export const streamEvents = endpoint(`GET ${EVENT_STREAM_PATH}`, {
  operationId: 'streamEvents',
  summary: 'Stream the platform’s events (server-sent events)',
  description: [
    'An extension beyond the spec’s list of v2 operations. Answers `200 text/event-stream` and keeps the connection open,',
    'sending each event of the calling token’s platform as it happens (never another platform’s), as',
    '`id: <stream position>`, `event: <type>`, `data: <the webhook delivery body {id, type, createdAt, data}>`.',
    'Transaction events need `read:transactions`, dispute and evidence events `read:disputes`; a token sees only the types it may read.',
    // The documented interval is the default: the contract is the same document whatever a deployment sets.
    `An idle stream gets a \`: heartbeat\` comment every ${EVENT_STREAM_HEARTBEAT_MS / 1000} s (\`EVENT_STREAM_HEARTBEAT_INTERVAL\`, 15 s by default). Reconnect with \`Last-Event-ID\` set to the last \`id:\``,
    'received to get every event after it (events stay replayable as long as the event stream keeps them, 30 days by default);',
    'without it the stream starts with the events from now on. The whole connection counts as one request of the standard tier.',
  ].join(' '),
  tier: 'standard',
  access: { anyScope: ['read:transactions', 'read:disputes'] },
  querystring: EventStreamQuery,
  headers: EventStreamHeaders,
  response: {
    200: { description: 'The event stream.', content: { 'text/event-stream': { schema: EventStreamResponse } } },
  },
  errors: [503],
});
