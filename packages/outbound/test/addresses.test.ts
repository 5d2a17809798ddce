import { describe, expect, it } from 'vitest';
import { allowListOf, nonPublicReason, whitelistEntryProblem } from '../src/index.js';

describe('address classification', () => {
  it.each([
    ['8.8.8.8', null],
    ['93.184.216.34', null],
    ['2606:4700:4700::1111', null],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['10.20.30.40', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', null],
    ['192.168.0.1', 'private'],
    ['fd00::1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::abcd', 'link-local'],
    ['100.64.0.1', 'shared (carrier-grade NAT)'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:8.8.8.8', null],
    ['64:ff9b::7f00:1', 'loopback (embedded 127.0.0.1)'],
    ['64:ff9b::808:808', null],
    ['2002:c0a8:0101::1', 'private (embedded 192.168.1.1)'],
    ['2002:0808:0808::1', null],
  ])('%s -> %s', (address, reason) => {
    expect(nonPublicReason(address)).toBe(reason);
  });
});

describe('allow lists', () => {
  it.each([
    ['203.0.113.7', null],
    ['203.0.113.0/24', null],
    ['2001:db8::/32', null],
    ['203.0.113.0/33', 'prefix must be an integer from 0 to 32'],
    ['example.com', 'must be an IP address or a CIDR range such as 203.0.113.0/24'],
    ['10.0.0.0/8/1', 'must be an IP address or a CIDR range such as 203.0.113.0/24'],
  ])('%s -> %s', (entry, problem) => {
    expect(whitelistEntryProblem(entry)).toBe(problem);
  });

  it('allows any address when empty, else only addresses within its entries', () => {
    expect(allowListOf([]).allows('8.8.8.8')).toBe(true);
    const list = allowListOf(['203.0.113.0/24', '2606:4700::1']);
    expect(list.allows('203.0.113.200')).toBe(true);
    expect(list.allows('203.0.114.1')).toBe(false);
    expect(list.allows('2606:4700::1')).toBe(true);
  });
});
