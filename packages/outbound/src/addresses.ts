import { BlockList, isIP, isIPv4 } from 'node:net';

/**
 * Which addresses outbound requests to tenant-set URLs may reach outside `local`: only public
 * unicast ones. Each rule names why a range is refused; the reason appears in the 400 at creation
 * and in the caller's failure (a delivery log, a provider error) at connect time. IPv4-mapped IPv6 addresses (`::ffff:127.0.0.1`) are judged as their IPv4 address;
 * NAT64 (`64:ff9b::/96`) and 6to4 (`2002::/16`) addresses as the IPv4 address they embed.
 */
const RULES: [reason: string, ranges: [network: string, prefix: number][]][] = [
  [
    'unspecified',
    [
      ['0.0.0.0', 8],
      ['::', 128],
    ],
  ],
  [
    'loopback',
    [
      ['127.0.0.0', 8],
      ['::1', 128],
    ],
  ],
  [
    'private',
    [
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
      ['fc00::', 7],
      ['fec0::', 10],
      ['64:ff9b:1::', 48],
    ],
  ],
  [
    'link-local',
    [
      ['169.254.0.0', 16],
      ['fe80::', 10],
    ],
  ],
  ['shared (carrier-grade NAT)', [['100.64.0.0', 10]]],
  [
    'multicast',
    [
      ['224.0.0.0', 4],
      ['ff00::', 8],
    ],
  ],
  [
    'reserved',
    [
      ['192.0.0.0', 24],
      ['192.0.2.0', 24],
      ['192.88.99.0', 24],
      ['198.18.0.0', 15],
      ['198.51.100.0', 24],
      ['203.0.113.0', 24],
      ['240.0.0.0', 4],
      ['::', 96],
      ['100::', 64],
      ['2001::', 23],
      ['2001:db8::', 32],
    ],
  ],
];

const LISTS = RULES.map(([reason, ranges]) => {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, isIPv4(network) ? 'ipv4' : 'ipv6');
  return { reason, list };
});

/** The 16 bytes of an IPv6 address (with `::` and an optional dotted IPv4 tail). */
function ipv6Bytes(address: string): number[] {
  let text = address.split('%')[0]!.toLowerCase();
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    tail.push(
      ...text
        .slice(lastColon + 1)
        .split('.')
        .map(Number),
    );
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const [head = '', rest] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const restGroups = rest ? rest.split(':') : [];
  const missing = 8 - headGroups.length - restGroups.length;
  const groups = rest === undefined ? headGroups : [...headGroups, ...Array(missing).fill('0'), ...restGroups];
  const bytes = groups.flatMap((g) => {
    const value = Number.parseInt(g || '0', 16);
    return [value >> 8, value & 0xff];
  });
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** The IPv4 address an IPv6 NAT64 or 6to4 address carries, if any. */
function embeddedIpv4(address: string): string | undefined {
  const b = ipv6Bytes(address);
  const isNat64 = b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && b.slice(4, 12).every((x) => x === 0);
  if (isNat64) return b.slice(12, 16).join('.');
  if (b[0] === 0x20 && b[1] === 0x02) return b.slice(2, 6).join('.');
  return undefined;
}

/** Why an address is not a public unicast address, or null when it is one. */
export function nonPublicReason(address: string): string | null {
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const { reason, list } of LISTS) if (list.check(address, type)) return reason;
  if (family === 6) {
    const embedded = embeddedIpv4(address);
    if (embedded) {
      const inner = nonPublicReason(embedded);
      if (inner) return `${inner} (embedded ${embedded})`;
    }
  }
  return null;
}

/** An allow list (a webhook's `ipWhitelist`): addresses and CIDR ranges an address must fall within (empty: any). */
export interface AddressAllowList {
  isEmpty: boolean;
  allows: (address: string) => boolean;
}

/** Why an allow-list entry is malformed, or null. */
export function whitelistEntryProblem(entry: string): string | null {
  const [network, prefix, ...extra] = entry.trim().split('/');
  if (extra.length > 0 || !network) return 'must be an IP address or a CIDR range such as 203.0.113.0/24';
  const family = isIP(network);
  if (family === 0) return 'must be an IP address or a CIDR range such as 203.0.113.0/24';
  if (prefix === undefined) return null;
  const max = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max) return `prefix must be an integer from 0 to ${max}`;
  return null;
}

export function allowListOf(entries: readonly string[]): AddressAllowList {
  const list = new BlockList();
  for (const entry of entries) {
    const [network, prefix] = entry.trim().split('/') as [string, string | undefined];
    const type = isIPv4(network) ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(network, type);
    else list.addSubnet(network, Number(prefix), type);
  }
  return {
    isEmpty: entries.length === 0,
    allows: (address) => entries.length === 0 || list.check(address, isIPv4(address) ? 'ipv4' : 'ipv6'),
  };
}
