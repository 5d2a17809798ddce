// The NetworkPolicies allow exactly the flows of the table in infra/k8s/README.md ("Network flows"):
// every flow between the endpoints below, on every port any policy or table row names, is evaluated
// as Kubernetes does (a flow passes when the source's egress and the destination's ingress both allow
// it; a pod no policy selects is open in that direction) and the allowed set must equal the table.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { kustomizationDir, type LabelSelector, type Manifest, render, selects } from '../src/kustomize.ts';

interface Peer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string; except?: string[] };
}
interface Rule {
  from?: Peer[];
  to?: Peer[];
  ports?: { protocol?: string; port: number }[];
}
interface Policy {
  podSelector: LabelSelector;
  policyTypes: ('Ingress' | 'Egress')[];
  ingress?: Rule[];
  egress?: Rule[];
}

/** An endpoint of a flow: a pod (in Holdfast's namespace or another) or an address outside the cluster. */
interface Endpoint {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  ip?: string;
}

const NAMESPACE = 'holdfast';
const ns = (name: string) => ({ 'kubernetes.io/metadata.name': name });
const ENDPOINTS: Endpoint[] = [
  ...['payments-service', 'workspace-service', 'webhook-dispatcher', 'chain-indexer', 'nats-setup', 'redis', 'nats'].map((name) => ({
    name,
    namespace: NAMESPACE,
    labels: { 'app.kubernetes.io/name': name },
  })),
  { name: 'holdfast-db', namespace: NAMESPACE, labels: { 'cnpg.io/cluster': 'holdfast-db' } },
  { name: 'any other pod', namespace: NAMESPACE, labels: { 'app.kubernetes.io/name': 'debug' } },
  { name: 'ingress-nginx', namespace: 'ingress-nginx', labels: {} },
  { name: 'monitoring', namespace: 'monitoring', labels: {} },
  { name: 'cnpg-system', namespace: 'cnpg-system', labels: {} },
  { name: 'observability', namespace: 'observability', labels: {} },
  { name: 'kube-dns', namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } },
  { name: 'a pod elsewhere', namespace: 'default', labels: {} },
  { name: 'internet', ip: '203.0.113.10' },
  { name: 'private network', ip: '10.1.2.3' },
];

function ipNumber(ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}
function inCidr(ip: string, cidr: string): boolean {
  const [base, bits] = cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  return Math.floor(ipNumber(ip) / size) === Math.floor(ipNumber(base as string) / size);
}

/** Does a peer of a policy in NAMESPACE match the endpoint? */
function peerMatches(peer: Peer, endpoint: Endpoint): boolean {
  if (peer.ipBlock) {
    // Pod traffic inside the cluster is matched by selectors; an ipBlock stands for addresses outside it.
    if (!endpoint.ip) return false;
    return inCidr(endpoint.ip, peer.ipBlock.cidr) && !(peer.ipBlock.except ?? []).some((cidr) => inCidr(endpoint.ip as string, cidr));
  }
  if (!endpoint.namespace) return false;
  const namespaceOk = peer.namespaceSelector ? selects(peer.namespaceSelector, ns(endpoint.namespace)) : endpoint.namespace === NAMESPACE;
  const podOk = peer.podSelector ? selects(peer.podSelector, endpoint.labels) : true;
  return namespaceOk && podOk;
}

function rulesAllow(rules: Rule[], peers: 'from' | 'to', other: Endpoint, port: number, protocol: string): boolean {
  return rules.some((rule) => {
    const peerOk = rule[peers] === undefined || rule[peers]?.some((peer) => peerMatches(peer, other));
    const portOk = rule.ports === undefined || rule.ports.some((p) => p.port === port && (p.protocol ?? 'TCP') === protocol);
    return peerOk && portOk;
  });
}

/** Whether the policies of NAMESPACE let `from` open `to`:`port`. */
function allowed(policies: Policy[], from: Endpoint, to: Endpoint, port: number, protocol: string): boolean {
  const side = (endpoint: Endpoint, type: 'Ingress' | 'Egress', other: Endpoint) => {
    // Only pods of NAMESPACE are governed by these policies; the other side is someone else's.
    if (endpoint.namespace !== NAMESPACE) return true;
    const governing = policies.filter((p) => p.policyTypes.includes(type) && selects(p.podSelector, endpoint.labels));
    if (governing.length === 0) return true;
    return governing.some((p) =>
      rulesAllow((type === 'Ingress' ? p.ingress : p.egress) ?? [], type === 'Ingress' ? 'from' : 'to', other, port, protocol),
    );
  };
  return side(from, 'Egress', to) && side(to, 'Ingress', from);
}

/** `from -> to port/protocol` rows of the README table ("any" port: every port of the universe). */
function documentedFlows(ports: { port: number; protocol: string }[]): string[] {
  const readme = readFileSync(kustomizationDir('README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Network flows'));
  const rows = section
    .split('\n')
    .map((line) => line.split('|').map((cell) => cell.trim()))
    .filter((cells) => cells.length > 4 && /^\d|^any$/.test(cells[3]?.replace(/`/g, '') ?? ''));
  const out: string[] = [];
  for (const [, from, to, portCell] of rows) {
    const strip = (s: string) => (s as string).replace(/`/g, '');
    for (const source of strip(from as string).split(', ')) {
      for (const spec of strip(portCell as string).split(', ')) {
        if (spec === 'any') for (const p of ports) out.push(`${source} -> ${strip(to as string)} ${p.port}/${p.protocol}`);
        else {
          const [port, protocol = 'TCP'] = spec.split('/');
          out.push(`${source} -> ${strip(to as string)} ${port}/${protocol}`);
        }
      }
    }
  }
  return out.sort();
}

describe.each(['staging', 'production'])('network policies (%s)', (overlay) => {
  const objects = render(kustomizationDir('overlays', overlay)).filter((o): o is Manifest & { spec: Policy } => o.kind === 'NetworkPolicy');
  const policies = objects.map((o) => o.spec);
  const ports = [
    ...new Map(
      [
        ...policies.flatMap((p) => [...(p.ingress ?? []), ...(p.egress ?? [])].flatMap((r) => r.ports ?? [])),
        // A port no policy names: what "any port" lets through shows on it.
        { port: 8080, protocol: 'TCP' },
      ].map((p) => [`${p.port}/${p.protocol ?? 'TCP'}`, { port: p.port, protocol: p.protocol ?? 'TCP' }]),
    ).values(),
  ];

  it('deny everything in the namespace that no policy allows, in both directions', () => {
    expect(policies.find((p) => Object.keys(p.podSelector).length === 0 && !p.ingress && !p.egress)?.policyTypes.sort()).toEqual([
      'Egress',
      'Ingress',
    ]);
  });

  /** Every `from -> to port/protocol` the policies let through. */
  function allowedFlows(set: Policy[]): string[] {
    const actual: string[] = [];
    for (const from of ENDPOINTS) {
      for (const to of ENDPOINTS) {
        // Nothing of Holdfast's namespace on either side: not these policies' business. Traffic from
        // outside the cluster reaches the pods only through the ingress controller. An endpoint to
        // itself stands for its pods talking to each other (NATS routes, PostgreSQL replication).
        if (from.namespace !== NAMESPACE && to.namespace !== NAMESPACE) continue;
        if (!from.namespace) continue;
        for (const { port, protocol } of ports)
          if (allowed(set, from, to, port, protocol)) actual.push(`${from.name} -> ${to.name} ${port}/${protocol}`);
      }
    }
    return actual.sort();
  }

  it('allow exactly the flows of infra/k8s/README.md', () => {
    expect(allowedFlows(policies)).toEqual(documentedFlows(ports));
  });

  it('would show a flow opened behind the table: the dispatcher let into Redis', () => {
    const widened = policies.map((p) =>
      p.podSelector.matchLabels?.['app.kubernetes.io/name'] === 'redis'
        ? {
            ...p,
            ingress: [
              ...(p.ingress ?? []),
              { from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'webhook-dispatcher' } } }] },
            ],
          }
        : p,
    );
    const extra = allowedFlows(widened).filter((flow) => !allowedFlows(policies).includes(flow));
    // Its own egress policy still stops it: opening one side is not enough.
    expect(extra).toEqual([]);
    const both = widened.map((p) =>
      p.podSelector.matchLabels?.['app.kubernetes.io/name'] === 'webhook-dispatcher'
        ? {
            ...p,
            egress: [
              ...(p.egress ?? []),
              { to: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'redis' } } }], ports: [{ protocol: 'TCP', port: 6379 }] },
            ],
          }
        : p,
    );
    expect(allowedFlows(both).filter((flow) => !allowedFlows(policies).includes(flow))).toEqual(['webhook-dispatcher -> redis 6379/TCP']);
  });
});
