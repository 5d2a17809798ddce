import { createLogger } from '@holdfast/logging';
import { createHttpApp, type HttpApp, type HttpAppOptions } from '../src/index.js';

/** An app of the kit for a test that does not read its logs: `service` names it and its silent logger. */
export function quietApp(service: string, options: Omit<HttpAppOptions, 'service' | 'logger'>): Promise<HttpApp> {
  return createHttpApp({ service, logger: createLogger({ service, level: 'silent' }), ...options });
}
