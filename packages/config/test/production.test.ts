import { describe, expect, it } from 'vitest';
import { ConfigError, PUBLIC_DEV_PRIVATE_KEYS, publicConstantProblems, requireAppEnv } from '../src/index.js';

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
