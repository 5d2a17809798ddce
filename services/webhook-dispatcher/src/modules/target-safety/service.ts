import type { AppEnv, FieldError } from '@holdfast/contracts';
import { createOutboundPolicy, type Resolver } from '@holdfast/outbound';
import type { Dispatcher } from 'undici';

export type { ResolvedAddress, Resolver } from '@holdfast/outbound';

/**
 * Where webhooks may go (operator contract, "Webhook deliveries"; docs/webhooks.md, "Safety"): the
 * shared outbound policy (@holdfast/outbound: public addresses only outside `local`, checked at
 * creation and again on every connection) with the webhook rules on top:
 *
 * - URL: `https`, or `http` too in `local` and `staging`; no user:password part.
 * - `ipWhitelist` (when not empty, in every environment): the connection is made only to an
 *   address of the host that falls within one of its addresses or CIDR ranges.
 */
export interface TargetPolicy {
  /** Problems of a subscription URL (empty when fine). Resolves the host outside `local`. */
  checkUrl: (url: string) => Promise<FieldError[]>;
  /** Problems of an `ipWhitelist` (empty when fine). */
  checkWhitelist: (entries: readonly string[]) => FieldError[];
  /** An undici dispatcher whose connections obey the policy and the whitelist. */
  dispatcherFor: (whitelist: readonly string[]) => Dispatcher;
  close: () => Promise<void>;
}

export function createTargetPolicy(options: { appEnv: AppEnv; resolver?: Resolver; connectTimeoutMs: number }): TargetPolicy {
  const outbound = createOutboundPolicy(options);
  const httpsOnly = options.appEnv === 'production';
  return {
    checkUrl: (url) => outbound.checkUrl(url, { field: 'url', httpsOnly }),
    checkWhitelist: (entries) => outbound.checkAllowList(entries, 'ipWhitelist'),
    dispatcherFor: (whitelist) => outbound.dispatcher({ allowList: whitelist, allowListName: "the subscription's ipWhitelist" }),
    close: outbound.close,
  };
}
