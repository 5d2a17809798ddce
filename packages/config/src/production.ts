import { ConfigError, type Env } from './env.js';

/**
 * A process started by hand, by an image or by an orchestrator must say which environment it is
 * in: a forgotten APP_ENV never falls back to `local` and its development defaults (a random JWT
 * secret, the well-known local signing keys, vendor stand-ins). `./scripts/start` sets `local`.
 */
export function requireAppEnv(env: Env): Env {
  if (env.APP_ENV === undefined || env.APP_ENV === '') {
    throw new ConfigError([
      'APP_ENV: must be set to local, staging or production; a process never assumes one (./scripts/start sets local) (missing)',
    ]);
  }
  return env;
}

/**
 * Private keys of accounts 0-9 of anvil's and Hardhat's default mnemonic ("test test ... junk"):
 * published, so anyone can sign with them. The local attester and deployer are among them.
 */
export const PUBLIC_DEV_PRIVATE_KEYS: readonly string[] = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
  '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e',
  '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356',
  '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97',
  '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6',
];

/**
 * For `refine`: in `production`, a signing key that is a public development key, or a secret equal
 * to a value published in this repository (the local fallbacks, the compose file's examples), is
 * refused with one line naming the variable.
 */
export function publicConstantProblems(
  config: { APP_ENV: string } & Record<string, unknown>,
  rules: { privateKeys?: string[]; publicValues?: Record<string, readonly string[]> },
): string[] {
  if (config.APP_ENV !== 'production') return [];
  const problems: string[] = [];
  for (const name of rules.privateKeys ?? []) {
    const value = config[name];
    if (typeof value === 'string' && PUBLIC_DEV_PRIVATE_KEYS.includes(value.toLowerCase())) {
      problems.push(`${name}: is a public development key (anvil's default accounts); production needs a key of your own`);
    }
  }
  for (const [name, values] of Object.entries(rules.publicValues ?? {})) {
    const value = config[name];
    if (typeof value === 'string' && values.includes(value)) {
      problems.push(`${name}: is a value published in the Holdfast repository; production needs a secret of your own`);
    }
  }
  return problems;
}
