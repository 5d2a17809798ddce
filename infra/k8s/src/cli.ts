// Prints the rendering of a kustomization directory as YAML, as `kubectl kustomize <dir>` would:
//   pnpm --filter @holdfast/k8s render overlays/production
import { resolve } from 'node:path';
import { stringify } from 'yaml';
import { renderKustomization } from './render.ts';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: node src/cli.ts <kustomization directory>\n');
  process.exit(2);
}
const objects = renderKustomization(resolve(process.env.INIT_CWD ?? process.cwd(), dir));
process.stdout.write(objects.map((object) => stringify(object)).join('---\n'));
