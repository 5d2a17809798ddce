import { isIPv6 } from 'node:net';

/**
 * The group of a client address that rate limits and throttles count by: an IPv4 address itself
 * (an IPv4-mapped IPv6 address as its IPv4), an IPv6 address its /64 network. One subscriber or
 * host is routinely handed a whole /64, so counting each IPv6 address apart gave a client 2^64
 * fresh buckets (issue 28 item 9).
 */
export function clientAddressGroup(address: string): string {
  if (!isIPv6(address)) return address;
  const groups = expandIPv6(address);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a zone dropped, a dotted IPv4 tail read). */
function expandIPv6(address: string): number[] {
  // A dotted IPv4 tail (`::ffff:1.2.3.4`) as its two hex groups.
  const text = address
    .split('%')[0]!
    .toLowerCase()
    .replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a, b, c, d) => `${((+a << 8) | +b).toString(16)}:${((+c << 8) | +d).toString(16)}`);
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  if (!text.includes('::')) return parse(text);
  const [head = '', rest = ''] = text.split('::');
  const left = parse(head);
  const right = parse(rest);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}
