import { startForTest } from '@holdfast/http-kit';
import { testLogger } from '@holdfast/test-fixtures';
import { createDispatcherService, dispatcherConfigFrom } from '@holdfast/webhook-dispatcher';
import type { Running } from './harness.js';

/**
 * The webhook dispatcher beside payments in a test: this file's database and NATS prefix, silent
 * logs, polling every 100 ms; `env` adds settings (e.g. a short WEBHOOK_RETRY_SCHEDULE).
 */
export async function startDispatcherFor(
  db: { url: string },
  nats: { url: string; prefix: string },
  env: Record<string, string> = {},
): Promise<Running> {
  const config = dispatcherConfigFrom({
    DATABASE_URL: db.url,
    NATS_URL: nats.url,
    NATS_SUBJECT_PREFIX: nats.prefix,
    LOG_LEVEL: 'silent',
    ...env,
  });
  return startForTest(await createDispatcherService(config, testLogger('webhook-dispatcher'), { pollIntervalMs: 100 }));
}
