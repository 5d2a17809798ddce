import { describe, expect, it } from 'vitest';
import { LOCAL_ATTESTER_KEY, LOCAL_RELAYER_KEY, paymentsConfigFrom } from '../../src/config.js';
import { NON_LOCAL_SECRETS } from '../support/harness.js';

const KEY = `0x${'ab'.repeat(32)}`;
const PRODUCTION = {
  ...NON_LOCAL_SECRETS,
  APP_ENV: 'production',
  REDIS_URL: 'redis://redis.example.com:6379',
  NATS_USER: 'payments',
  NATS_PASSWORD: 'p'.repeat(32),
};

describe('relayer settings', () => {
  it('takes a key per network; in local the networks without one use anvil #6, elsewhere none', () => {
    const local = paymentsConfigFrom({ RELAYER_PRIVATE_KEYS: `base=${KEY}` }).relayer;
    expect(local.keys).toEqual({ base: KEY });
    expect(local.defaultKey).toBe(LOCAL_RELAYER_KEY);
    // #6 is nobody else's: not the attester (#7).
    expect(LOCAL_RELAYER_KEY).not.toBe(LOCAL_ATTESTER_KEY);
    const staging = paymentsConfigFrom({ ...PRODUCTION, APP_ENV: 'staging', RELAYER_PRIVATE_KEYS: `base-sepolia=${KEY}, base=${KEY}` });
    expect(staging.relayer.keys).toEqual({ 'base-sepolia': KEY, base: KEY });
    expect(staging.relayer.defaultKey).toBeUndefined();
  });

  it('has defaults for the budget, the balance, the stuck time, the margin and the poll', () => {
    expect(paymentsConfigFrom({}).relayer).toMatchObject({
      maxFeeWeiPerPlatformPerDay: 50_000_000_000_000_000n,
      minBalanceWei: 10_000_000_000_000_000n,
      stuckAfterMs: 30_000,
      validityMarginSeconds: 60,
      pollIntervalMs: 1000,
    });
  });

  it('refuses a malformed key list', () => {
    expect(() => paymentsConfigFrom({ RELAYER_PRIVATE_KEYS: 'base=0x1234' })).toThrow(/RELAYER_PRIVATE_KEYS: must be network=0x/);
    expect(() => paymentsConfigFrom({ RELAYER_MAX_FEE_WEI_PER_PLATFORM_PER_DAY: '0.05' })).toThrow(
      /RELAYER_MAX_FEE_WEI_PER_PLATFORM_PER_DAY/,
    );
  });

  it('refuses a public development key in production, naming the network', () => {
    expect(() => paymentsConfigFrom({ ...PRODUCTION, RELAYER_PRIVATE_KEYS: `base=${LOCAL_RELAYER_KEY}` })).toThrow(
      /RELAYER_PRIVATE_KEYS: the key of base is a public development key/,
    );
    expect(paymentsConfigFrom({ ...PRODUCTION, RELAYER_PRIVATE_KEYS: `base=${KEY}` }).relayer.keys).toEqual({ base: KEY });
  });
});
