import { findBinary, installDebianPackage } from './servers.ts';

/**
 * The Chromium the browser tests drive (services/payments-service/test/checkout/browser.test.ts,
 * ADR 46): HOLDFAST_CHROMIUM when set, else Debian's `chromium` on PATH, else Debian's package
 * installed here (as nats-server is). playwright-core never downloads a browser of its own.
 */
export function ensureChromium(env: NodeJS.ProcessEnv): string {
  if (env.HOLDFAST_CHROMIUM) return env.HOLDFAST_CHROMIUM;
  return (
    findBinary('chromium') ??
    installDebianPackage('browser tests', 'chromium', 'chromium', 'set HOLDFAST_CHROMIUM to a Chromium or Chrome binary')
  );
}
