import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  natsCredentialProblems,
  PUBLIC_DEV_PRIVATE_KEYS,
  parseTrustProxy,
  publicConstantProblems,
  requireAppEnv,
} from '../src/index.js';

describe('production mode', () => {
  it('refuses an environment without APP_ENV (or with an empty one) in one line naming it', () => {
    for (const env of [{}, { APP_ENV: '' }]) {
      expect(() => requireAppEnv(env)).toThrow(ConfigError);
      try {
        requireAppEnv(env);
      } catch (error) {
        expect((error as ConfigError).problems).toEqual([
          'APP_ENV: must be set to local, staging or production; a process never assumes one (./scripts/start sets local) (missing)',
        ]);
      }
    }
    expect(requireAppEnv({ APP_ENV: 'local', X: '1' })).toEqual({ APP_ENV: 'local', X: '1' });
  });

  it('refuses public development keys and published values in production only, whatever their case', () => {
    const key = PUBLIC_DEV_PRIVATE_KEYS[7]!.toUpperCase().replace('0X', '0x');
    const rules = { privateKeys: ['SIGNER'], publicValues: { HOOK_SECRET: ['published-value'] } };
    expect(publicConstantProblems({ APP_ENV: 'production', SIGNER: key, HOOK_SECRET: 'published-value' }, rules)).toEqual([
      "SIGNER: is a public development key (anvil's default accounts); production needs a key of your own",
      'HOOK_SECRET: is a value published in the Holdfast repository; production needs a secret of your own',
    ]);
    expect(publicConstantProblems({ APP_ENV: 'staging', SIGNER: key, HOOK_SECRET: 'published-value' }, rules)).toEqual([]);
    expect(publicConstantProblems({ APP_ENV: 'production', SIGNER: `0x${'1'.repeat(64)}`, HOOK_SECRET: 'mine' }, rules)).toEqual([]);
  });
});

describe('TRUST_PROXY', () => {
  it('takes hops or proxy addresses and CIDRs, refuses "true" and anything else in one line', () => {
    expect(parseTrustProxy(undefined)).toEqual({ value: false, problems: [] });
    expect(parseTrustProxy('false')).toEqual({ value: false, problems: [] });
    expect(parseTrustProxy('2')).toEqual({ value: 2, problems: [] });
    expect(parseTrustProxy('10.0.0.0/8, 192.168.1.5,loopback,fd00::/8')).toEqual({
      value: ['10.0.0.0/8', '192.168.1.5', 'loopback', 'fd00::/8'],
      problems: [],
    });
    for (const bad of ['true', '10.0.0.0/33', 'lb.example.com', '1.2.3.4/8/9']) {
      expect(parseTrustProxy(bad).problems).toEqual([
        `TRUST_PROXY: must be a number of proxy hops or proxy addresses/CIDRs (or loopback, linklocal, uniquelocal), comma-separated; "true" is refused (got "${bad}")`,
      ]);
    }
  });
});

describe('NATS credentials', () => {
  it('come whole: a user with its password, or an nkey seed, and a client certificate with its key', () => {
    expect(natsCredentialProblems({ NATS_USER: 'payments-service', NATS_PASSWORD: 'pw' })).toEqual([]);
    expect(natsCredentialProblems({ NATS_USER: 'payments-service' })).toEqual(['NATS_PASSWORD: is required with NATS_USER (missing)']);
    expect(natsCredentialProblems({ NATS_PASSWORD: 'pw' })).toEqual(['NATS_USER: is required with NATS_PASSWORD (missing)']);
    expect(natsCredentialProblems({ NATS_USER: 'u', NATS_PASSWORD: 'p', NATS_NKEY_SEED: `SU${'A'.repeat(56)}` })).toEqual([
      'NATS_NKEY_SEED: set either NATS_USER and NATS_PASSWORD or NATS_NKEY_SEED, not both',
    ]);
    expect(natsCredentialProblems({ NATS_TLS_CERT: '/etc/tls/client.pem' })).toEqual([
      'NATS_TLS_KEY: is required with NATS_TLS_CERT (missing)',
    ]);
  });

  it('are required in production, in one line naming the variables; staging and local may connect without', () => {
    const missing = "NATS_USER: production needs this process's own NATS user: NATS_USER and NATS_PASSWORD, or NATS_NKEY_SEED (missing)";
    expect(natsCredentialProblems({ APP_ENV: 'production' })).toEqual([missing]);
    expect(natsCredentialProblems({ APP_ENV: 'production', NATS_TLS_CERT: '/c.pem', NATS_TLS_KEY: '/k.pem' })).toEqual([missing]);
    expect(natsCredentialProblems({ APP_ENV: 'production', NATS_USER: 'payments-service', NATS_PASSWORD: 'pw' })).toEqual([]);
    expect(natsCredentialProblems({ APP_ENV: 'production', NATS_NKEY_SEED: `SU${'A'.repeat(56)}` })).toEqual([]);
    // Half a credential is still named by its own line, not by the production one.
    expect(natsCredentialProblems({ APP_ENV: 'production', NATS_USER: 'payments-service' })).toEqual([
      'NATS_PASSWORD: is required with NATS_USER (missing)',
    ]);
    expect(natsCredentialProblems({ APP_ENV: 'staging' })).toEqual([]);
    expect(natsCredentialProblems({ APP_ENV: 'local' })).toEqual([]);
  });
});
