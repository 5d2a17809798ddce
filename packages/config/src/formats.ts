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

/**
 * A PostgreSQL URL, one host or several (`postgres://u@a:5432,b:5432/db?target_session_attrs=primary`,
 * as libpq and postgres.js read it: the client tries the hosts in order and, with that attribute,
 * keeps only a primary, so the processes follow a failover by themselves; docs/operations.md).
 * WHATWG's URL does not parse a host list, so the hosts are split off before it parses the rest.
 */
export function parsePostgresUrl(value: string): { hosts: { host: string; port: number }[]; database: string } | undefined {
  const match = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/.exec(value);
  if (!match) return undefined;
  const [, scheme, userinfo = '', hostList = '', rest = ''] = match;
  const hosts: { host: string; port: number }[] = [];
  for (const entry of hostList.split(',')) {
    try {
      const url = new URL(`${scheme}${userinfo}${entry}${rest}`);
      if (url.hostname.length === 0) return undefined;
      hosts.push({ host: url.hostname, port: url.port ? Number(url.port) : 5432 });
    } catch {
      return undefined;
    }
  }
  let database: string;
  try {
    database = decodeURIComponent(new URL(`${scheme}${userinfo}${hostList.split(',')[0]}${rest}`).pathname.slice(1));
  } catch {
    return undefined; // a malformed %-escape in the database name
  }
  return { hosts, database: database || 'postgres' };
}

const formats: Record<string, (value: string) => boolean> = {
  'postgres-url': (v) => parsePostgresUrl(v) !== undefined,
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
