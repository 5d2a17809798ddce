import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { AppEnv, FieldError } from '@holdfast/contracts';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { type AddressAllowList, allowListOf, nonPublicReason, whitelistEntryProblem } from './addresses.js';

/**
 * Where webhooks may go (operator contract, "Webhook deliveries"; docs/webhooks.md, "Safety").
 *
 * - URL: `https`, or `http` too in `local` and `staging`; no user:password part.
 * - Outside `local`: no loopback, private, link-local or other non-public address, checked at
 *   creation (the host as written and every address it resolves to) and again on every connection,
 *   on the address the socket actually connects to: the check sits in the socket's DNS lookup, so
 *   a name that resolves to a public address when checked and to 127.0.0.1 a moment later
 *   (DNS rebinding) is still refused.
 * - `ipWhitelist` (when not empty, in every environment): the connection is made only to an
 *   address of the host that falls within one of its addresses or CIDR ranges.
 */

export interface ResolvedAddress {
  address: string;
  family: number;
}
/** Resolves a host name to its addresses (tests inject their own; the default is the system's). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/** A connection the policy refused; its message goes into the delivery log. */
export class TargetRefusedError extends Error {
  readonly code = 'HF_TARGET_REFUSED';
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefusedError';
  }
}

export interface TargetPolicy {
  /** Problems of a subscription URL (empty when fine). Resolves the host outside `local`. */
  checkUrl: (url: string) => Promise<FieldError[]>;
  /** Problems of an `ipWhitelist` (empty when fine). */
  checkWhitelist: (entries: readonly string[]) => FieldError[];
  /** An undici dispatcher whose connections obey the policy and the whitelist. */
  dispatcherFor: (whitelist: readonly string[]) => Dispatcher;
  close: () => Promise<void>;
}

const LOCALHOST_NAMES = /(^|\.)localhost\.?$/i;
const MAX_AGENTS = 256;

function bare(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

export function createTargetPolicy(options: { appEnv: AppEnv; resolver?: Resolver; connectTimeoutMs: number }): TargetPolicy {
  const { appEnv } = options;
  const resolver = options.resolver ?? systemResolver;
  const publicOnly = appEnv !== 'local';
  const agents = new Map<string, Agent>();

  /** Why a connection to this address is refused, or null. */
  function refusal(address: string, allow: AddressAllowList): string | null {
    if (publicOnly) {
      const reason = nonPublicReason(address);
      if (reason) return `address ${address} is ${reason}; only public addresses are allowed outside local`;
    }
    if (!allow.allows(address)) return `address ${address} is not in the subscription's ipWhitelist`;
    return null;
  }

  function agentFor(whitelist: readonly string[]): Agent {
    const allow = allowListOf(whitelist);
    const refuse = (address: string) => refusal(address, allow);
    type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
    const guardedLookup = (hostname: string, lookupOptions: LookupOptions, callback: LookupCallback) => {
      resolver(hostname).then(
        (addresses) => {
          const wanted = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : undefined;
          const candidates = addresses.filter((a) => wanted === undefined || a.family === wanted);
          const allowed = candidates.filter((a) => refuse(a.address) === null);
          if (allowed.length === 0) {
            const first = candidates[0];
            const why = first ? refuse(first.address) : `${hostname} has no address`;
            callback(new TargetRefusedError(`connection refused by policy: ${hostname}: ${why}`), []);
            return;
          }
          if (lookupOptions.all)
            callback(
              null,
              allowed.map((a) => ({ address: a.address, family: a.family })),
            );
          else callback(null, allowed[0]!.address, allowed[0]!.family);
        },
        (error: NodeJS.ErrnoException) => callback(error, []),
      );
    };
    const base = buildConnector({ lookup: guardedLookup, timeout: options.connectTimeoutMs } as buildConnector.BuildOptions);
    const connect: buildConnector.connector = (connectOptions, callback) => {
      // An address written in the URL is connected to directly: no lookup to guard, so check here.
      const host = bare(connectOptions.hostname);
      if (isIP(host)) {
        const why = refuse(host);
        if (why) {
          callback(new TargetRefusedError(`connection refused by policy: ${why}`), null);
          return;
        }
      }
      base(connectOptions, callback);
    };
    return new Agent({ connect, allowH2: false, keepAliveTimeout: 4000 });
  }

  return {
    checkUrl: async (text) => {
      const problems: FieldError[] = [];
      const problem = (reason: string) => problems.push({ field: 'url', reason });
      let url: URL;
      try {
        url = new URL(text);
      } catch {
        problem('must be an absolute URL');
        return problems;
      }
      const schemes = appEnv === 'production' ? ['https:'] : ['https:', 'http:'];
      const schemeOk = schemes.includes(url.protocol);
      if (!schemeOk) problem(appEnv === 'production' ? 'must use https' : 'must use http or https');
      if (url.username || url.password) problem('must not contain a user name or password');
      if (schemeOk && !url.hostname) problem('must have a host');
      if (problems.length > 0 || !publicOnly) return problems;

      const host = bare(url.hostname);
      if (isIP(host)) {
        const reason = nonPublicReason(host);
        if (reason) problem(`must not point to a ${reason} address (${host}) outside local`);
        return problems;
      }
      let addresses: ResolvedAddress[] = [];
      try {
        addresses = await resolver(host);
      } catch {
        // A name that does not resolve yet is accepted (every connection is checked again), except
        // the names that always mean this machine.
        if (LOCALHOST_NAMES.test(host)) problem(`must not point to a loopback host (${host}) outside local`);
        return problems;
      }
      for (const { address } of addresses) {
        const reason = nonPublicReason(address);
        if (reason) {
          problem(`must not point to a ${reason} address: ${host} resolves to ${address}, refused outside local`);
          break;
        }
      }
      return problems;
    },
    checkWhitelist: (entries) =>
      entries.flatMap((entry, i) => {
        const reason = whitelistEntryProblem(entry);
        return reason ? [{ field: `ipWhitelist.${i}`, reason }] : [];
      }),
    dispatcherFor: (whitelist) => {
      const key = [...whitelist]
        .map((e) => e.trim())
        .sort()
        .join(',');
      let agent = agents.get(key);
      if (agent) {
        // Most recently used last, so the oldest is evicted first.
        agents.delete(key);
        agents.set(key, agent);
        return agent;
      }
      agent = agentFor(whitelist);
      agents.set(key, agent);
      if (agents.size > MAX_AGENTS) {
        const [oldestKey, oldest] = agents.entries().next().value!;
        agents.delete(oldestKey);
        void oldest.close();
      }
      return agent;
    },
    close: async () => {
      const all = [...agents.values()];
      agents.clear();
      await Promise.all(all.map((a) => a.close()));
    },
  };
}
