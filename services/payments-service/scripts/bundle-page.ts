// Builds the hosted payer page (src/modules/checkout/page) into page-build/: page-<hash>.js (esbuild,
// minified, browser ES2022), page-<hash>.css, and index.html naming them, and the chunks the page
// imports only when it needs them: walletconnect-client-<hash>.js (the WalletConnect client, ADR 61)
// and any chunk-<hash>.js they share. Run by the service's build script (`node
// scripts/bundle-page.ts`) and by the tests that serve the page (`bundlePage()`), so the page
// served is always the sources'. Prints the sizes (docs/benchmarks.md).
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const serviceDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(serviceDir, 'src', 'modules', 'checkout', 'page');

export interface PageBundle {
  dir: string;
  /** The page's own script: what every payer's browser downloads. */
  js: number;
  css: number;
  html: number;
  /** The script of the WalletConnect chunk (with the shared chunks it imports), fetched only when the payer picks WalletConnect. */
  walletConnectJs: number;
  /** Every file written, by name, with its bytes. */
  files: Record<string, number>;
}

export async function bundlePage(outDir = join(serviceDir, 'page-build')): Promise<PageBundle> {
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
      // The WalletConnect client is an entry of its own (walletconnect-client-<hash>.js), which
      // the page's dynamic import() names; code both use goes to chunk-<hash>.js.
      entryPoints: [join(source, 'page.ts'), join(source, 'wallets', 'walletconnect-client.ts')],
      format: 'esm',
      splitting: true,
      chunkNames: 'chunk-[hash]',
      platform: 'browser',
      target: 'es2022',
      // esbuild's default 'module' condition is dropped once conditions are named: named again, so
      // packages resolve to their ES builds (tree-shaken).
      conditions: ['@holdfast/source', 'module'],
      // The WalletConnect libraries read `global` (Node's name) in places.
      define: { global: 'globalThis' },
      metafile: true,
    }),
    build({ ...common, entryPoints: [join(source, 'page.css')], loader: { '.css': 'css' } }),
  ]);
  const scripts = script.outputFiles.filter((f) => f.path.endsWith('.js'));
  const jsFile = scripts.find((f) => basename(f.path).startsWith('page-'))!;
  const cssFile = style.outputFiles[0]!;
  const [js, css] = [jsFile.text, cssFile.text];
  const [jsName, cssName] = [basename(jsFile.path), basename(cssFile.path)];
  // The chunks the page's script imports, fetched beside it rather than after it.
  const outputs = script.metafile.outputs;
  const key = (name: string) => Object.keys(outputs).find((k) => basename(k) === name)!;
  const pageImports = new Set(outputs[key(jsName)]!.imports.filter((i) => i.kind === 'import-statement').map((i) => basename(i.path)));
  const preload = [...pageImports].map((n) => `<link rel="modulepreload" href="/pay/assets/${n}">`).join('\n');
  const html = (await readFile(join(source, 'index.html'), 'utf8'))
    .replace('{{script}}', jsName)
    .replace('{{style}}', cssName)
    .replace('{{preload}}\n', preload ? `${preload}\n` : '');
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  await Promise.all([
    ...scripts.map((f) => writeFile(join(outDir, basename(f.path)), f.contents)),
    writeFile(join(outDir, cssName), css),
    writeFile(join(outDir, 'index.html'), html),
  ]);
  // What picking WalletConnect adds: its chunk and the chunks it imports that the page does not.
  const wcName = scripts.map((f) => basename(f.path)).find((n) => n.startsWith('walletconnect-client-'));
  const wcFiles = new Set<string>();
  const visit = (name: string) => {
    if (wcFiles.has(name) || pageImports.has(name) || name === jsName) return;
    wcFiles.add(name);
    for (const i of outputs[key(name)]!.imports) if (i.kind === 'import-statement') visit(basename(i.path));
  };
  if (wcName) visit(wcName);
  const files = Object.fromEntries(scripts.map((f) => [basename(f.path), f.contents.byteLength]));
  return {
    dir: outDir,
    js: Buffer.byteLength(js) + [...pageImports].reduce((sum, n) => sum + (files[n] ?? 0), 0),
    css: Buffer.byteLength(css),
    html: Buffer.byteLength(html),
    walletConnectJs: [...wcFiles].reduce((sum, n) => sum + (files[n] ?? 0), 0),
    files: { ...files, [cssName]: Buffer.byteLength(css), 'index.html': Buffer.byteLength(html) },
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = await bundlePage();
  console.log(`page-build: js ${out.js} B, css ${out.css} B, html ${out.html} B; WalletConnect chunk ${out.walletConnectJs} B (on demand)`);
}
