// A kustomize renderer for the subset of kustomization fields Holdfast's manifests use, so that the
// overlays are rendered and validated offline (no kustomize binary on npm). Any other field is
// refused, so a manifest can never rely on something this renderer silently ignores. Each rule follows
// kustomize's documented behaviour for that field (pinned by test/render.test.ts); `kubectl kustomize`
// renders the same directories.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

export type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string } & Record<string, unknown>;
} & Record<string, unknown>;

interface Kustomization {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  resources?: string[];
  labels?: { pairs: Record<string, string>; includeSelectors?: boolean; includeTemplates?: boolean }[];
  images?: { name: string; newName?: string; newTag?: string }[];
  patches?: { path: string }[];
}

const SUPPORTED = new Set(['apiVersion', 'kind', 'namespace', 'resources', 'labels', 'images', 'patches']);

/** Kinds that live outside namespaces (the namespace transformer leaves them alone). */
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'PriorityClass',
  'StorageClass',
]);

/**
 * List fields whose items strategic merge patches match by a key instead of replacing the list
 * (the `patchMergeKey` of the Kubernetes API for the fields these manifests patch).
 */
const MERGE_KEYS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  ports: 'containerPort',
};

export function readYamlDocuments(path: string): Record<string, unknown>[] {
  const documents = parseAllDocuments(readFileSync(path, 'utf8'));
  const out: Record<string, unknown>[] = [];
  for (const document of documents) {
    if (document.errors.length > 0) throw new Error(`${path}: ${document.errors[0]?.message}`);
    const value = document.toJS() as Record<string, unknown> | null;
    if (value !== null && value !== undefined) out.push(value);
  }
  return out;
}

function readKustomization(dir: string): Kustomization {
  const file = join(dir, 'kustomization.yaml');
  if (!existsSync(file)) throw new Error(`${dir}: no kustomization.yaml`);
  const [k] = readYamlDocuments(file) as Kustomization[];
  if (!k) throw new Error(`${file}: empty`);
  for (const key of Object.keys(k)) {
    if (!SUPPORTED.has(key))
      throw new Error(`${file}: field "${key}" is not supported by this renderer (supported: ${[...SUPPORTED].join(', ')})`);
  }
  if (k.kind !== undefined && k.kind !== 'Kustomization') throw new Error(`${file}: kind must be Kustomization`);
  for (const label of k.labels ?? []) {
    if (label.includeSelectors || label.includeTemplates)
      throw new Error(`${file}: labels with includeSelectors/includeTemplates are not supported`);
  }
  return k;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A strategic merge patch: maps merge, keyed lists merge item by item, other lists and scalars are replaced. */
export function strategicMerge(target: unknown, patch: unknown, field = ''): unknown {
  if (isObject(target) && isObject(patch)) {
    const out: Record<string, unknown> = { ...target };
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete out[key];
      else out[key] = key in target ? strategicMerge(target[key], value, key) : value;
    }
    return out;
  }
  const mergeKey = MERGE_KEYS[field];
  if (Array.isArray(target) && Array.isArray(patch) && mergeKey) {
    const out = target.map((item) => item as Record<string, unknown>);
    for (const item of patch as Record<string, unknown>[]) {
      const at = out.findIndex((existing) => existing[mergeKey] === item[mergeKey]);
      if (at === -1) out.push(item);
      else out[at] = strategicMerge(out[at], item) as Record<string, unknown>;
    }
    return out;
  }
  return patch;
}

function podSpecs(manifest: Manifest): Record<string, unknown>[] {
  const spec = manifest.spec as Record<string, unknown> | undefined;
  const template = spec?.template as { spec?: Record<string, unknown> } | undefined;
  const jobTemplate = (spec?.jobTemplate as { spec?: { template?: { spec?: Record<string, unknown> } } } | undefined)?.spec?.template;
  return [template?.spec, jobTemplate?.spec].filter((s): s is Record<string, unknown> => s !== undefined);
}

function imageName(image: string): { name: string; tag?: string } {
  const at = image.lastIndexOf(':');
  // A colon before the last slash is a registry port, not a tag.
  if (at === -1 || at < image.lastIndexOf('/')) return { name: image };
  return { name: image.slice(0, at), tag: image.slice(at + 1) };
}

function sameObject(a: Manifest, b: Manifest): boolean {
  return a.kind === b.kind && a.metadata.name === b.metadata.name && a.apiVersion.split('/')[0] === b.apiVersion.split('/')[0];
}

/** Renders a kustomization directory (its resources, recursively, then its own transformers). */
export function renderKustomization(dir: string): Manifest[] {
  const root = resolve(dir);
  const k = readKustomization(root);
  let objects: Manifest[] = [];
  for (const entry of k.resources ?? []) {
    const path = resolve(root, entry);
    if (statSync(path).isDirectory()) objects.push(...renderKustomization(path));
    else objects.push(...(readYamlDocuments(path) as Manifest[]));
  }
  for (const object of objects) {
    if (!object.apiVersion || !object.kind || !object.metadata?.name)
      throw new Error(`${root}: an object without apiVersion, kind or metadata.name`);
  }
  const seen = new Set<string>();
  for (const object of objects) {
    const id = `${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`;
    if (seen.has(id)) throw new Error(`${root}: ${id} is defined twice`);
    seen.add(id);
  }
  for (const entry of k.patches ?? []) {
    const file = resolve(root, entry.path);
    for (const patch of readYamlDocuments(file) as Manifest[]) {
      const at = objects.findIndex((object) => sameObject(object, patch));
      if (at === -1) throw new Error(`${file}: patch target ${patch.kind}/${patch.metadata?.name} not found`);
      objects[at] = strategicMerge(objects[at], patch) as Manifest;
    }
  }
  if (k.namespace) {
    const namespace = k.namespace;
    objects = objects.map((object) =>
      CLUSTER_SCOPED.has(object.kind) ? object : { ...object, metadata: { ...object.metadata, namespace } },
    );
  }
  for (const label of k.labels ?? []) {
    objects = objects.map((object) => ({
      ...object,
      metadata: { ...object.metadata, labels: { ...(object.metadata.labels as Record<string, string> | undefined), ...label.pairs } },
    }));
  }
  for (const rule of k.images ?? []) {
    for (const object of objects) {
      for (const spec of podSpecs(object)) {
        for (const list of ['containers', 'initContainers']) {
          for (const container of (spec[list] as { image?: string }[] | undefined) ?? []) {
            if (!container.image) continue;
            const { name, tag } = imageName(container.image);
            if (name !== rule.name) continue;
            const newTag = rule.newTag ?? tag;
            container.image = `${rule.newName ?? name}${newTag ? `:${newTag}` : ''}`;
          }
        }
      }
    }
  }
  return objects;
}

export function kustomizationDir(...parts: string[]): string {
  return resolve(dirname(new URL(import.meta.url).pathname), '..', ...parts);
}
