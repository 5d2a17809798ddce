import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { POLICY_TEST_HOSTS } from '@holdfast/test-fixtures';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundPolicy, OutboundRefusedError, refusalIn, tableResolver } from '../src/index.js';

// The policy outside `local` refuses non-public addresses twice: when a URL is set (checkUrl) and
// on every connection its dispatcher makes, on the address the socket would connect to. Names
// resolve through an injected resolver, so a name can be public when checked and loopback when
// connected to (DNS rebinding). The target is a real HTTP server on loopback: any request it
// receives while the policy forbids loopback is a failure.

const dns = new Map<string, string[]>([...POLICY_TEST_HOSTS, ['loopback.example', ['127.0.0.1']]]);
const resolver = tableResolver(dns);

let server: Server;
let port = 0;
let served = 0;

beforeAll(async () => {
  server = createServer((_req, res) => {
    served += 1;
    res.end('ok');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as { port: number }).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const rules = { field: 'config.baseUrl', httpsOnly: true };

describe('checkUrl outside local', () => {
  const policy = createOutboundPolicy({ appEnv: 'staging', resolver });
  afterAll(() => policy.close());

  it.each([
    ['http://public.example/', 'must use https'],
    ['not a url', 'must be an absolute URL'],
    ['https://user:pw@public.example/', 'must not contain a user name or password'],
    ['https://127.0.0.1:5432/', 'must not point to a loopback address (127.0.0.1) outside local'],
    ['https://169.254.169.254/', 'must not point to a link-local address (169.254.169.254) outside local'],
    ['https://10.0.0.1/', 'must not point to a private address (10.0.0.1) outside local'],
    ['https://[::ffff:127.0.0.1]/', 'must not point to a loopback address (::ffff:7f00:1) outside local'],
    ['https://internal.example/', 'must not point to a private address: internal.example resolves to 10.1.2.3, refused outside local'],
    [
      'https://metadata.example/',
      'must not point to a link-local address: metadata.example resolves to 169.254.169.254, refused outside local',
    ],
    ['https://mixed.example/', 'must not point to a loopback address: mixed.example resolves to 127.0.0.1, refused outside local'],
    ['https://api.localhost/', 'must not point to a loopback host (api.localhost) outside local'],
  ])('refuses %s', async (url, reason) => {
    expect(await policy.checkUrl(url, rules)).toEqual([{ field: 'config.baseUrl', reason }]);
  });

  it('accepts a public URL and a name that does not resolve yet; http when the rules allow it', async () => {
    expect(await policy.checkUrl('https://public.example/v1', rules)).toEqual([]);
    expect(await policy.checkUrl('https://not-yet-in-dns.example/', rules)).toEqual([]);
    expect(await policy.checkUrl('http://public.example/', { field: 'url', httpsOnly: false })).toEqual([]);
  });

  it('refuses localhost through the real resolver', async () => {
    const real = createOutboundPolicy({ appEnv: 'production' });
    expect(await real.checkUrl('https://localhost:8443/', rules)).toEqual([
      {
        field: 'config.baseUrl',
        reason: expect.stringMatching(
          /^must not point to a loopback address: localhost resolves to (127\.0\.0\.1|::1), refused outside local$/,
        ),
      },
    ]);
    await real.close();
  });

  it('names allow-list problems by index', () => {
    expect(policy.checkAllowList(['203.0.113.0/24', 'nope'], 'ipWhitelist')).toEqual([
      { field: 'ipWhitelist.1', reason: 'must be an IP address or a CIDR range such as 203.0.113.0/24' },
    ]);
  });
});

describe('the dispatcher at connect time', () => {
  async function refusedBy(dispatcher: ReturnType<typeof createOutboundPolicy>['dispatcher'], url: string) {
    const error = await request(url, { dispatcher: dispatcher() }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeDefined();
    return refusalIn(error);
  }

  it('refuses a host name that resolves to 127.0.0.1 when the policy forbids loopback (nothing reaches the server)', async () => {
    const policy = createOutboundPolicy({ appEnv: 'staging', resolver });
    const before = served;
    dns.set('rebind.example', ['93.184.216.34']);
    expect(await policy.checkUrl(`https://rebind.example:${port}/`, rules)).toEqual([]);
    dns.set('rebind.example', ['127.0.0.1']);
    const refused = await refusedBy(policy.dispatcher, `http://rebind.example:${port}/`);
    expect(refused).toBeInstanceOf(OutboundRefusedError);
    expect(refused?.message).toBe(
      'connection refused by policy: rebind.example: address 127.0.0.1 is loopback; only public addresses are allowed outside local',
    );
    expect(served).toBe(before);
    await policy.close();
  });

  it('refuses localhost through the real resolver, and an address literal', async () => {
    const policy = createOutboundPolicy({ appEnv: 'production' });
    const before = served;
    expect((await refusedBy(policy.dispatcher, `http://localhost:${port}/`))?.message).toMatch(
      /^connection refused by policy: localhost: address (127\.0\.0\.1|::1) is loopback; only public addresses are allowed outside local$/,
    );
    expect((await refusedBy(policy.dispatcher, `http://127.0.0.1:${port}/`))?.message).toBe(
      'connection refused by policy: address 127.0.0.1 is loopback; only public addresses are allowed outside local',
    );
    expect(served).toBe(before);
    await policy.close();
  });

  it('connects to loopback in local, unless an allow list excludes it', async () => {
    const policy = createOutboundPolicy({ appEnv: 'local', resolver });
    expect(policy.publicOnly).toBe(false);
    expect(await policy.checkUrl(`http://127.0.0.1:${port}/`, { field: 'url', httpsOnly: false })).toEqual([]);
    const before = served;
    const res = await request(`http://loopback.example:${port}/`, { dispatcher: policy.dispatcher() });
    expect(await res.body.text()).toBe('ok');
    expect(served).toBe(before + 1);
    const error = await request(`http://127.0.0.1:${port}/`, {
      dispatcher: policy.dispatcher({ allowList: ['203.0.113.0/24'], allowListName: "the subscription's ipWhitelist" }),
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refusalIn(error)?.message).toBe("connection refused by policy: address 127.0.0.1 is not in the subscription's ipWhitelist");
    expect(served).toBe(before + 1);
    await policy.close();
  });
});
