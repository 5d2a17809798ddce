import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { AppEnv, FieldError } from '@holdfast/contracts';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { type AddressAllowList, allowListOf, nonPublicReason, whitelistEntryProblem } from './addresses.js';

/**
 * Where a request to a URL a tenant (or anyone but the operator) chose may go: webhook deliveries,
 * custody vendors' `baseUrl`. docs/webhooks.md "Safety", docs/wallets.md "Where baseUrl may point".
 *
 * - URL: `https` (or `http` too, as the caller's rules say); no user:password part.
 * - Outside `local`: no loopback, private, link-local or other non-public address, checked when
 *   the URL is set (the host as written and every address it resolves to) and again on every
 *   connection, on the address the socket actually connects to: the check sits in the socket's DNS
 *   lookup, so a name that resolves to a public address when checked and to 127.0.0.1 a moment
 *   later (DNS rebinding) is still refused.
 * - In `local` (tests and development use loopback stand-ins) any address is allowed.
 * - An allow list (a webhook's `ipWhitelist`, when not empty, in every environment): the
 *   connection is made only to an address of the host that falls within one of its entries.
 */

export interface ResolvedAddress {
  address: string;
  family: number;
}
/** Resolves a host name to its addresses (tests inject their own; the default is the system's). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/**
 * A resolver that answers from `table` (host name to addresses), read at each lookup so a test can
 * change where a name points; a name not in it fails as getaddrinfo does (ENOTFOUND).
 */
export function tableResolver(table: ReadonlyMap<string, readonly string[]>): Resolver {
  return async (hostname) => {
    const addresses = table.get(hostname);
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

/** A connection the policy refused; its message says which host and address, and why. */
export class OutboundRefusedError extends Error {
  readonly code = 'HF_OUTBOUND_REFUSED';
  constructor(message: string) {
    super(message);
    this.name = 'OutboundRefusedError';
  }
}

/**
 * An error and the errors behind it, nearest first: its `cause`s and an AggregateError's `errors`
 * (undici wraps connect errors in both), at most 10.
 */
export function errorCauses(error: unknown): unknown[] {
  const seen: unknown[] = [];
  const queue = [error];
  while (queue.length > 0 && seen.length < 10) {
    const e = queue.shift();
    if (!e || seen.includes(e)) continue;
    seen.push(e);
    if (e instanceof AggregateError) queue.push(...e.errors);
    if (e instanceof Error && e.cause) queue.push(e.cause);
  }
  return seen;
}

/** The policy's refusal somewhere in an error's cause chain, if any. */
export function refusalIn(error: unknown): OutboundRefusedError | undefined {
  return errorCauses(error).find((e): e is OutboundRefusedError => e instanceof OutboundRefusedError);
}

/** Whether only public addresses may be reached: everywhere but `local`. */
export function publicOnlyIn(appEnv: AppEnv): boolean {
  return appEnv !== 'local';
}

export interface UrlRules {
  /** The field the problems name, e.g. `url` or `config.baseUrl`. */
  field: string;
  /** Only `https` (otherwise `http` too). */
  httpsOnly: boolean;
}

export interface GuardOptions {
  /** Addresses and CIDR ranges the connection must go to (empty or absent: any the policy allows). */
  allowList?: readonly string[];
  /** How a refusal names the allow list, e.g. "the subscription's ipWhitelist". */
  allowListName?: string;
}

export interface OutboundPolicy {
  /** False in `local`: any address may be reached. */
  readonly publicOnly: boolean;
  /** Problems of a URL (empty when fine). Resolves the host outside `local`. */
  checkUrl: (url: string, rules: UrlRules) => Promise<FieldError[]>;
  /** Problems of an allow list (empty when fine), named `${field}.${index}`. */
  checkAllowList: (entries: readonly string[], field: string) => FieldError[];
  /** An undici dispatcher whose every connection obeys the policy (and the allow list). Cached per allow list. */
  dispatcher: (options?: GuardOptions) => Dispatcher;
  close: () => Promise<void>;
}

export interface OutboundPolicyOptions {
  appEnv: AppEnv;
  resolver?: Resolver | undefined;
  /** Deadline of one connection attempt (default 10 s). */
  connectTimeoutMs?: number | undefined;
}

const LOCALHOST_NAMES = /(^|\.)localhost\.?$/i;
const MAX_AGENTS = 256;

function bare(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

export function createOutboundPolicy(options: OutboundPolicyOptions): OutboundPolicy {
  const resolver = options.resolver ?? systemResolver;
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const publicOnly = publicOnlyIn(options.appEnv);
  const agents = new Map<string, Agent>();

  /** Why a connection to this address is refused, or null. */
  function refusal(address: string, allow: AddressAllowList, allowListName: string): string | null {
    if (publicOnly) {
      const reason = nonPublicReason(address);
      if (reason) return `address ${address} is ${reason}; only public addresses are allowed outside local`;
    }
    if (!allow.allows(address)) return `address ${address} is not in ${allowListName}`;
    return null;
  }

  function agentFor(whitelist: readonly string[], allowListName: string): Agent {
    const allow = allowListOf(whitelist);
    const refuse = (address: string) => refusal(address, allow, allowListName);
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
            callback(new OutboundRefusedError(`connection refused by policy: ${hostname}: ${why}`), []);
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
    const base = buildConnector({ lookup: guardedLookup, timeout: connectTimeoutMs } as buildConnector.BuildOptions);
    const connect: buildConnector.connector = (connectOptions, callback) => {
      // An address written in the URL is connected to directly: no lookup to guard, so check here.
      const host = bare(connectOptions.hostname);
      if (isIP(host)) {
        const why = refuse(host);
        if (why) {
          callback(new OutboundRefusedError(`connection refused by policy: ${why}`), null);
          return;
        }
      }
      base(connectOptions, callback);
    };
    return new Agent({ connect, allowH2: false, keepAliveTimeout: 4000 });
  }

  return {
    publicOnly,
    checkUrl: async (text, rules) => {
      const problems: FieldError[] = [];
      const problem = (reason: string) => problems.push({ field: rules.field, reason });
      let url: URL;
      try {
        url = new URL(text);
      } catch {
        problem('must be an absolute URL');
        return problems;
      }
      const schemes = rules.httpsOnly ? ['https:'] : ['https:', 'http:'];
      const schemeOk = schemes.includes(url.protocol);
      if (!schemeOk) problem(rules.httpsOnly ? 'must use https' : 'must use http or https');
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
    checkAllowList: (entries, field) =>
      entries.flatMap((entry, i) => {
        const reason = whitelistEntryProblem(entry);
        return reason ? [{ field: `${field}.${i}`, reason }] : [];
      }),
    dispatcher: (guard = {}) => {
      const whitelist = guard.allowList ?? [];
      const allowListName = guard.allowListName ?? 'the allow list';
      const key = `${allowListName}|${[...whitelist]
        .map((e) => e.trim())
        .sort()
        .join(',')}`;
      let agent = agents.get(key);
      if (agent) {
        // Most recently used last, so the oldest is evicted first.
        agents.delete(key);
        agents.set(key, agent);
        return agent;
      }
      agent = agentFor(whitelist, allowListName);
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
