import { FormatRegistry } from '@sinclair/typebox';
import { parseDuration, parseDurationList } from './durations.js';

function urlWith(protocols: string[]) {
  return (value: string) => {
    try {
      const url = new URL(value);
      return protocols.includes(url.protocol) && url.hostname.length > 0;
    } catch {
      return false;
    }
  };
}

const formats: Record<string, (value: string) => boolean> = {
  'postgres-url': urlWith(['postgres:', 'postgresql:']),
  'nats-url': (v) => v.split(',').every(urlWith(['nats:', 'tls:', 'ws:', 'wss:'])),
  'http-url': urlWith(['http:', 'https:']),
  'redis-url': urlWith(['redis:', 'rediss:']),
  'header-list': (v) => v.split(',').every((pair) => /^[A-Za-z0-9-]+=.+$/.test(pair.trim())),
  duration: (v) => parseDuration(v) !== undefined,
  'duration-list': (v) => parseDurationList(v) !== undefined,
  'base64-32': (v) => /^[A-Za-z0-9+/]+={0,2}$/.test(v) && Buffer.from(v, 'base64').length === 32,
  'base64-32-list': (v) =>
    v
      .split(',')
      .map((k) => k.trim())
      .every((k) => /^[A-Za-z0-9+/]+={0,2}$/.test(k) && Buffer.from(k, 'base64').length === 32),
  'chain-rpc-urls': (v) =>
    v.split(',').every((pair) => {
      const [network, url, ...rest] = pair.split('=');
      return rest.length === 0 && !!network && /^[a-z0-9-]+$/.test(network) && !!url && urlWith(['http:', 'https:', 'ws:', 'wss:'])(url);
    }),
  'chain-ws-urls': (v) =>
    v.split(',').every((pair) => {
      const [network, url, ...rest] = pair.split('=');
      return rest.length === 0 && !!network && /^[a-z0-9-]+$/.test(network) && !!url && (url === 'off' || urlWith(['ws:', 'wss:'])(url));
    }),
};

for (const [name, check] of Object.entries(formats)) {
  if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, check);
}
