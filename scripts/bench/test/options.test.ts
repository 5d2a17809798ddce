import { afterEach, describe, expect, it, vi } from 'vitest';
import { envFrom, nodeArgsFrom, optionsOf } from '../options.ts';

describe('optionsOf', () => {
  const options = optionsOf(['--rounds', '3', '--write', '--only', 'create-transaction,webhooks', '--requests', '2e3']);

  it('reads the number after --name, and the fallback when it is absent', () => {
    expect(options.numberOption('rounds', 5)).toBe(3);
    expect(options.numberOption('requests', 100)).toBe(2000);
    expect(options.numberOption('starts', 5)).toBe(5);
  });

  it('reads the word after --name (--only a,b), undefined when absent', () => {
    expect(options.stringOption('only')?.split(',')).toEqual(['create-transaction', 'webhooks']);
    expect(options.stringOption('services-root')).toBeUndefined();
  });

  it('tells whether a --flag was given, by its whole name', () => {
    expect(options.flag('write')).toBe(true);
    expect(options.flag('force')).toBe(false);
    expect(optionsOf(['--write-all']).flag('write')).toBe(false);
    expect(optionsOf(['--smoke']).flag('smoke')).toBe(true);
  });

  it('refuses a value that is not a number, naming the option (--rounds abc would have run NaN rounds)', () => {
    expect(() => optionsOf(['--rounds', 'abc']).numberOption('rounds', 5)).toThrow('--rounds takes a number, not "abc"');
    expect(() => optionsOf(['--requests', '--write']).numberOption('requests', 100)).toThrow('--requests takes a number');
  });

  it('falls back when the option is last and has no value', () => {
    expect(optionsOf(['--rounds']).numberOption('rounds', 5)).toBe(5);
    expect(optionsOf(['--only']).stringOption('only')).toBeUndefined();
  });
});

describe('nodeArgsFrom', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('splits a variable of Node flags on spaces (BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof")', () => {
    vi.stubEnv('BENCHKIT_TEST_NODE_ARGS', ' --cpu-prof  --cpu-prof-dir=/tmp/prof ');
    expect(nodeArgsFrom('BENCHKIT_TEST_NODE_ARGS')).toEqual(['--cpu-prof', '--cpu-prof-dir=/tmp/prof']);
  });

  it('gives no flags when the variable is unset', () => {
    expect(nodeArgsFrom('BENCHKIT_TEST_UNSET_VARIABLE')).toEqual([]);
  });
});

describe('envFrom', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('reads NAME=value words (BENCH_PAYMENTS_ENV="PAYMENTS_CREATION_GROUP_MAX=8 LOG_LEVEL=info"), a value keeping its own =', () => {
    vi.stubEnv('BENCHKIT_TEST_ENV', 'PAYMENTS_CREATION_GROUP_MAX=8  LOG_LEVEL=info X=a=b');
    expect(envFrom('BENCHKIT_TEST_ENV')).toEqual({ PAYMENTS_CREATION_GROUP_MAX: '8', LOG_LEVEL: 'info', X: 'a=b' });
  });

  it('refuses a word that is not NAME=value, naming the variable', () => {
    vi.stubEnv('BENCHKIT_TEST_ENV', 'PAYMENTS_CREATION_GROUP_MAX');
    expect(() => envFrom('BENCHKIT_TEST_ENV')).toThrow(/BENCHKIT_TEST_ENV: "PAYMENTS_CREATION_GROUP_MAX" is not NAME=value/);
  });

  it('gives nothing when the variable is unset', () => {
    expect(envFrom('BENCHKIT_TEST_UNSET_VARIABLE')).toEqual({});
  });
});
