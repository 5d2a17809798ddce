// Builds the hosted payer page (src/modules/checkout/page) into page-build/: page-<hash>.js (esbuild,
// minified, browser ES2022), page-<hash>.css, and index.html naming them. Run by the service's
// build script (`node scripts/bundle-page.ts`) and by the tests that serve the page
// (`bundlePage()`), so the page served is always the sources'. Prints the sizes (docs/benchmarks.md).
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const serviceDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(serviceDir, 'src', 'modules', 'checkout', 'page');

export async function bundlePage(outDir = join(serviceDir, 'page-build')): Promise<{ dir: string; js: number; css: number; html: number }> {
  // esbuild's content hash names each file: a changed page is a new name, so the assets cache for good.
  const common = {
    bundle: true,
    minify: true,
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
    outdir: outDir,
    entryNames: '[name]-[hash]',
  } as const;
  const [script, style] = await Promise.all([
    build({
      ...common,
      entryPoints: [join(source, 'page.ts')],
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      conditions: ['@holdfast/source'],
    }),
    build({ ...common, entryPoints: [join(source, 'page.css')], loader: { '.css': 'css' } }),
  ]);
  const jsFile = script.outputFiles[0]!;
  const cssFile = style.outputFiles[0]!;
  const [js, css] = [jsFile.text, cssFile.text];
  const [jsName, cssName] = [basename(jsFile.path), basename(cssFile.path)];
  const html = (await readFile(join(source, 'index.html'), 'utf8')).replace('{{script}}', jsName).replace('{{style}}', cssName);
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  await Promise.all([
    writeFile(join(outDir, jsName), js),
    writeFile(join(outDir, cssName), css),
    writeFile(join(outDir, 'index.html'), html),
  ]);
  return { dir: outDir, js: Buffer.byteLength(js), css: Buffer.byteLength(css), html: Buffer.byteLength(html) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = await bundlePage();
  console.log(`page-build: js ${out.js} B, css ${out.css} B, html ${out.html} B`);
}
