// The overlays as the cluster gets them: rendered by `kubectl kustomize` (the kustomize built into
// kubectl, which `kubectl apply -k` uses), and validated against the published schemas: the
// Kubernetes API of kubernetes-models, CloudNativePG's CRDs and the Prometheus Operator's CRDs of
// their @kubernetes-models packages (ADR 56). ./scripts/test installs kubectl when it is missing and
// names it in HOLDFAST_KUBECTL.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as cloudnativePg from '@kubernetes-models/cloudnative-pg';
import * as prometheusOperator from '@kubernetes-models/prometheus-operator';
import * as kubernetes from 'kubernetes-models';
import { parseAllDocuments } from 'yaml';

export type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> } & Record<
    string,
    unknown
  >;
} & Record<string, unknown>;

export const kubectl = process.env.HOLDFAST_KUBECTL ?? 'kubectl';

export function kustomizationDir(...parts: string[]): string {
  return fileURLToPath(new URL(['..', ...parts].join('/'), import.meta.url));
}

export function parseYamlDocuments(text: string, source: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const document of parseAllDocuments(text)) {
    if (document.errors.length > 0) throw new Error(`${source}: ${document.errors[0]?.message}`);
    const value = document.toJS() as Record<string, unknown> | null;
    if (value !== null && value !== undefined) out.push(value);
  }
  return out;
}

export function readYamlDocuments(path: string): Record<string, unknown>[] {
  return parseYamlDocuments(readFileSync(path, 'utf8'), path);
}

/** `kubectl kustomize <dir>`: what `kubectl apply -k <dir>` would send. */
export function render(dir: string): Manifest[] {
  let text: string;
  try {
    text = execFileSync(kubectl, ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`${kubectl} kustomize ${dir} failed: ${e.stderr || e.message}`);
  }
  return parseYamlDocuments(text, `kubectl kustomize ${dir}`) as Manifest[];
}

type Model = (new (data: unknown) => { validate: () => void }) & { apiVersion?: string; kind?: string };

/** Every model of the three packages, by `apiVersion/kind`. */
const MODELS = new Map<string, Model>();
function collect(namespace: unknown): void {
  for (const value of Object.values(namespace as Record<string, unknown>)) {
    const model = value as Model;
    if (typeof value === 'function' && model.apiVersion && model.kind) MODELS.set(`${model.apiVersion}/${model.kind}`, model);
    else if (value && typeof value === 'object') collect(value);
  }
}
collect(kubernetes);
collect(cloudnativePg);
collect(prometheusOperator);

/**
 * The schema errors of one object ([] when valid), or a single error when no package knows its
 * kind. The generated validators check types, enums, formats and required fields; like the API
 * server's own OpenAPI schemas they do not refuse unknown fields, so the tests assert the fields
 * that matter by their exact path.
 */
export function schemaErrors(object: Manifest): string[] {
  const Model = MODELS.get(`${object.apiVersion}/${object.kind}`);
  if (!Model) return [`${object.apiVersion}/${object.kind}: no published schema knows this kind`];
  try {
    new Model(object).validate();
    return [];
  } catch (error) {
    return [(error as Error).message];
  }
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}

/** Whether a Kubernetes label selector selects these labels (an empty selector selects all). */
export function selects(selector: LabelSelector, labels: Record<string, string> = {}): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (labels[key] !== value) return false;
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    const value = labels[key];
    if (operator === 'In' && !(value !== undefined && values.includes(value))) return false;
    if (operator === 'NotIn' && value !== undefined && values.includes(value)) return false;
    if (operator === 'Exists' && value === undefined) return false;
    if (operator === 'DoesNotExist' && value !== undefined) return false;
  }
  return true;
}
