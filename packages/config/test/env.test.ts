import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import {
  ChainEnv,
  ChainWsEnv,
  CommonEnv,
  ConfigError,
  chainWsUrls,
  loadConfig,
  parseChainRpcUrls,
  parseDurationList,
  parseHeaderList,
  parsePostgresUrl,
  portField,
  requiredOutsideLocal,
} from '../src/index.js';

const schema = Type.Object({ ...CommonEnv, ...ChainEnv, ...ChainWsEnv, PORT: portField(3001), API_SECRET: Type.Optional(Type.String()) });

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(schema, env, (c) => requiredOutsideLocal(c, ['API_SECRET']));
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
}

describe('loadConfig', () => {
  it('applies the operator contract defaults', () => {
    const config = loadConfig(schema, {});
    expect(config).toMatchObject({
      APP_ENV: 'local',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/holdfast',
      NATS_URL: 'nats://127.0.0.1:4222',
      PORT: 3001,
      LOG_LEVEL: 'info',
    });
  });

  it('takes the stream replicas of a NATS cluster (1 by default) and refuses anything but 1 to 5', () => {
    expect(loadConfig(schema, {}).NATS_STREAM_REPLICAS).toBe(1);
    expect(loadConfig(schema, { NATS_STREAM_REPLICAS: '3' }).NATS_STREAM_REPLICAS).toBe(3);
    expect(problemsOf({ NATS_STREAM_REPLICAS: '0' })).toEqual([
      'NATS_STREAM_REPLICAS: must be 1 (one server) or the copies of each stream in a NATS cluster, 3 or 5 (got "0")',
    ]);
  });

  it('takes a DATABASE_URL with several hosts (a primary and its standbys) and names its database', () => {
    const url = 'postgres://app:pw@pg-1:5432,pg-2:5433/holdfast?target_session_attrs=primary';
    expect(problemsOf({ DATABASE_URL: url })).toEqual([]);
    expect(parsePostgresUrl(url)).toEqual({
      hosts: [
        { host: 'pg-1', port: 5432 },
        { host: 'pg-2', port: 5433 },
      ],
      database: 'holdfast',
    });
    expect(parsePostgresUrl('postgresql://127.0.0.1/')).toEqual({ hosts: [{ host: '127.0.0.1', port: 5432 }], database: 'postgres' });
    for (const bad of ['postgres://pg-1:5432,/holdfast', 'postgres://pg-1:port/holdfast', 'mysql://pg-1/holdfast', 'postgres://pg-1/%zz']) {
      expect(problemsOf({ DATABASE_URL: bad }), bad).toHaveLength(1);
    }
  });

  it('converts numbers and treats empty strings as unset', () => {
    expect(loadConfig(schema, { PORT: '4000', LOG_LEVEL: '' })).toMatchObject({ PORT: 4000, LOG_LEVEL: 'info' });
  });

  it('names each bad value on one line and hides URL passwords', () => {
    const problems = problemsOf({ DATABASE_URL: 'not a url', PORT: 'eighty', APP_ENV: 'prod', NATS_URL: 'http://x:secret@host' });
    expect(problems).toHaveLength(4);
    expect(problems).toContain('DATABASE_URL: must be a postgres:// or postgresql:// URL with a host (got "not a url")');
    expect(problems.find((p) => p.startsWith('PORT:'))).toBe('PORT: must be a TCP port from 0 to 65535 (got "eighty")');
    expect(problems.find((p) => p.startsWith('APP_ENV:'))).toMatch(/must be local, staging or production/);
    expect(problems.join('\n')).not.toContain('secret');
  });

  it('requires secrets outside local and never echoes them', () => {
    expect(problemsOf({ APP_ENV: 'production' })).toEqual(['API_SECRET: is required when APP_ENV is production (missing)']);
    expect(problemsOf({ APP_ENV: 'production', API_SECRET: 's3cret' })).toEqual([]);
  });

  it('parses chain RPC pairs and durations', () => {
    expect(problemsOf({ CHAIN_RPC_URLS: 'base-sepolia=ftp://x' })[0]).toMatch(/^CHAIN_RPC_URLS: must be network=url pairs/);
    expect(parseChainRpcUrls('base=https://a,ethereum=https://b', 'production')).toEqual({ base: 'https://a', ethereum: 'https://b' });
    expect(parseChainRpcUrls(undefined, 'local')).toEqual({ 'base-sepolia': 'http://127.0.0.1:8545' });
    expect(parseChainRpcUrls(undefined, 'production')).toEqual({});
    expect(parseDurationList('5s,5m,30m,2h')).toEqual([5000, 300000, 1800000, 7200000]);
    expect(parseDurationList('5s,soon')).toBeUndefined();
  });

  it('subscribes to new heads at the RPC address as ws:// unless CHAIN_WS_URLS names another address or off', () => {
    expect(problemsOf({ CHAIN_WS_URLS: 'base=https://a' })[0]).toMatch(/^CHAIN_WS_URLS: must be network=url pairs \(ws:\/\/ or wss:\/\//);
    expect(problemsOf({ CHAIN_WS_URLS: 'base=wss://a/ws,ethereum=off' })).toEqual([]);
    const rpc = {
      base: 'https://base.example/v2/key',
      ethereum: 'https://eth.example',
      arbitrum: 'http://127.0.0.1:8545',
      op: 'wss://op.example',
    };
    expect(chainWsUrls('ethereum=wss://eth.example/ws,arbitrum=off', rpc)).toEqual({
      base: 'wss://base.example/v2/key',
      ethereum: 'wss://eth.example/ws',
      arbitrum: undefined,
      op: 'wss://op.example',
    });
  });
});

describe('tracing settings', () => {
  it('are off by default and record every trace once on', () => {
    const config = loadConfig(schema, {});
    expect(config.OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
    expect(config.OTEL_TRACES_SAMPLER_ARG).toBe(1);
  });

  it('refuse a bad endpoint, header list or ratio with one line each, never echoing the headers', () => {
    expect(
      problemsOf({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization',
        OTEL_TRACES_SAMPLER_ARG: '2',
      }),
    ).toEqual([
      'OTEL_EXPORTER_OTLP_ENDPOINT: must be the http(s) URL of an OTLP/HTTP collector, e.g. http://otel-collector:4318 (got "collector:4318")',
      'OTEL_EXPORTER_OTLP_HEADERS: must be name=value pairs, comma-separated (e.g. authorization=Bearer abc) (got a value (hidden))',
      'OTEL_TRACES_SAMPLER_ARG: must be a fraction from 0 to 1 (share of new traces recorded) (got "2")',
    ]);
  });

  it('parses the collector headers, values URL-decoded as the OpenTelemetry variable defines them', () => {
    expect(parseHeaderList('authorization=Bearer%20abc, x-team=payments')).toEqual({ authorization: 'Bearer abc', 'x-team': 'payments' });
    expect(parseHeaderList(undefined)).toEqual({});
  });
});
