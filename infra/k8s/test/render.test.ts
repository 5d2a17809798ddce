import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderKustomization, strategicMerge } from '../src/render.ts';

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'holdfast-k8s-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  selector: { matchLabels: { app: api } }
  template:
    metadata: { labels: { app: api } }
    spec:
      containers:
        - name: api
          image: holdfast/api:latest
          args: ["--a", "--b"]
          env:
            - { name: A, value: "1" }
            - { name: B, value: "2" }
          resources: { requests: { cpu: 100m, memory: 128Mi } }
        - name: sidecar
          image: registry.local:5000/tools/sidecar
`;

describe('strategic merge patches (the kustomize rules for the fields the manifests patch)', () => {
  it('merges maps, merges containers and env by name, replaces other lists, deletes on null', () => {
    // Container a as the patch leaves it: its args replaced, its env merged by name, `keep` deleted
    // (a new object at each use, so the merge cannot change what it is compared with).
    const patchedA = () => ({
      name: 'a',
      args: ['z'],
      env: [
        { name: 'A', value: '9' },
        { name: 'C', value: '3' },
      ],
    });
    const merged = strategicMerge(
      { spec: { containers: [{ name: 'a', args: ['x', 'y'], env: [{ name: 'A', value: '1' }], keep: 1 }, { name: 'b' }] } },
      { spec: { containers: [{ ...patchedA(), keep: null }] } },
    );
    expect(merged).toEqual({ spec: { containers: [patchedA(), { name: 'b' }] } });
  });
});

describe('renderKustomization', () => {
  it('applies resources, patches, namespace, labels and images in that order', () => {
    const root = tree({
      'base/kustomization.yaml': 'resources: [deployment.yaml]\n',
      'base/deployment.yaml': deployment,
      'env/kustomization.yaml': `namespace: prod
resources: [../base]
labels:
  - pairs: { team: payments }
images:
  - { name: holdfast/api, newName: registry.example/holdfast/api, newTag: "1.2.3" }
  - { name: registry.local:5000/tools/sidecar, newTag: "7" }
patches:
  - path: patch.yaml
`,
      'env/patch.yaml': `apiVersion: apps/v1
kind: Deployment
metadata: { name: api }
spec:
  template:
    spec:
      containers:
        - name: api
          env: [{ name: B, value: "20" }]
          resources: { requests: { cpu: "1" } }
`,
    });
    const [rendered] = renderKustomization(join(root, 'env'));
    if (!rendered) throw new Error('nothing rendered');
    expect(rendered.metadata).toEqual({ name: 'api', namespace: 'prod', labels: { team: 'payments' } });
    const spec = (rendered.spec as { template: { metadata: unknown; spec: { containers: Record<string, unknown>[] } } }).template;
    // `labels` without includeSelectors/includeTemplates touches only the object's own labels.
    expect(spec.metadata).toEqual({ labels: { app: 'api' } });
    expect(spec.spec.containers[0]).toEqual({
      name: 'api',
      image: 'registry.example/holdfast/api:1.2.3',
      args: ['--a', '--b'],
      env: [
        { name: 'A', value: '1' },
        { name: 'B', value: '20' },
      ],
      resources: { requests: { cpu: '1', memory: '128Mi' } },
    });
    expect(spec.spec.containers[1]?.image).toBe('registry.local:5000/tools/sidecar:7');
  });

  it('refuses a field it does not implement, rather than ignoring it', () => {
    const root = tree({ 'kustomization.yaml': 'resources: [d.yaml]\nnamePrefix: x-\n', 'd.yaml': deployment });
    expect(() => renderKustomization(root)).toThrow(/field "namePrefix" is not supported/);
  });

  it('refuses a patch whose target does not exist and an object defined twice', () => {
    const missing = tree({
      'kustomization.yaml': 'resources: [d.yaml]\npatches: [{ path: p.yaml }]\n',
      'd.yaml': deployment,
      'p.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: nope }\n',
    });
    expect(() => renderKustomization(missing)).toThrow(/patch target Deployment\/nope not found/);
    const twice = tree({ 'kustomization.yaml': 'resources: [d.yaml, e.yaml]\n', 'd.yaml': deployment, 'e.yaml': deployment });
    expect(() => renderKustomization(twice)).toThrow(/defined twice/);
  });
});
