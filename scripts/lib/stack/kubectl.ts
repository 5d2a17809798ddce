import { execFileSync } from 'node:child_process';
import { findBinary, installDebianPackage } from './servers.ts';

/**
 * The kubectl whose `kubectl kustomize` renders infra/k8s's overlays in the manifests tests:
 * HOLDFAST_KUBECTL when set, else `kubectl` on PATH, else Debian's `kubernetes-client` installed here
 * (as chromium is). The overlays use kustomize 5 fields (`labels`, `patches`, image digests), so an
 * older kubectl is refused here with the reason rather than failing the tests on a rendering error.
 */
export function ensureKubectl(env: NodeJS.ProcessEnv): string {
  const kubectl =
    env.HOLDFAST_KUBECTL ??
    findBinary('kubectl') ??
    installDebianPackage('manifests tests', 'kubernetes-client', 'kubectl', 'set HOLDFAST_KUBECTL to a kubectl 1.27 or later');
  const version = JSON.parse(execFileSync(kubectl, ['version', '--client', '-o', 'json'], { encoding: 'utf8' })) as {
    kustomizeVersion?: string;
  };
  const major = Number(/^v?(\d+)/.exec(version.kustomizeVersion ?? '')?.[1] ?? 0);
  if (major < 5)
    throw new Error(
      `${kubectl} embeds kustomize ${version.kustomizeVersion ?? '(none)'}; infra/k8s needs kustomize 5 (kubectl 1.27 or later). Set HOLDFAST_KUBECTL to one.`,
    );
  return kubectl;
}
