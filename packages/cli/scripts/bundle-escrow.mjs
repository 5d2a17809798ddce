// After tsc: make dist/ stand alone for `npm pack`. The CLI reads the escrow's ABI from
// @holdfast/contracts/escrow, which is not published: its compiled files (data only, no imports)
// are copied into dist/escrow/ and dist/chain.js points there. Fails the build when a compiled
// file still names a workspace package other than the published @holdfast/sdk.
import { cpSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const source = join(root, '..', 'contracts', 'dist', 'escrow');
const target = join(dist, 'escrow');

rmSync(target, { recursive: true, force: true });
cpSync(source, target, { recursive: true, filter: (src) => statSync(src).isDirectory() || /\.js$/.test(src) });

for (const name of readdirSync(dist)) {
  const file = join(dist, name);
  if (statSync(file).isDirectory() || !name.endsWith('.js')) continue;
  const text = readFileSync(file, 'utf8').replaceAll(/(["'])@holdfast\/contracts\/escrow\1/g, "'./escrow/index.js'");
  writeFileSync(file, text);
  const named = /["'](@holdfast\/[^"'/]+)/.exec(text.replaceAll(/["']@holdfast\/sdk["']/g, ''));
  if (named) {
    console.error(`dist/${name} imports ${named[1]}, a workspace package the published CLI cannot`);
    process.exit(1);
  }
}
