// After tsc: make dist/ stand alone. The SDK imports @holdfast/contracts for types only (never at
// run time), and that package is not published, so its declarations are copied into
// dist/contracts/ and the SDK's declarations point there (ADR 22). Fails the build when a
// compiled .js file still names a workspace package.
import { cpSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const contractsDist = join(root, '..', 'contracts', 'dist');
const target = join(dist, 'contracts');

rmSync(target, { recursive: true, force: true });
cpSync(contractsDist, target, { recursive: true, filter: (src) => statSync(src).isDirectory() || src.endsWith('.d.ts') });

for (const name of readdirSync(dist)) {
  const file = join(dist, name);
  if (statSync(file).isDirectory()) continue;
  const text = readFileSync(file, 'utf8');
  if (name.endsWith('.d.ts')) {
    writeFileSync(file, text.replaceAll(/(["'])@holdfast\/contracts\1/g, "'./contracts/index.js'"));
  } else if (name.endsWith('.js') && /["']@holdfast\//.test(text)) {
    console.error(`dist/${name} imports a workspace package at run time; the published SDK cannot`);
    process.exit(1);
  }
}
