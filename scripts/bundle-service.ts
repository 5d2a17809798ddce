// Bundles a service's production entries (ADR 31): src/main.ts -> bundle/main.js and src/migrate.ts ->
// bundle/migrate.js (and payments-service's src/nats-setup.ts -> bundle/nats-setup.js), each one file (plus a chunk per module imported only on demand, like the
// OpenTelemetry SDK) with a linked source map. Run from the service's folder by its `build` script:
//   node ../../scripts/bundle-service.ts
// Tests and `pnpm --filter <service> dev` paths keep running the unbundled sources and dist/.
import { existsSync } from 'node:fs';
import { cp, readFile, rm } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { build, type Plugin } from 'esbuild';

/** payments-service also carries the NATS setup (src/nats-setup.ts -> bundle/nats-setup.js): one image for its Job. */
const ENTRIES = ['main', 'migrate', 'nats-setup'].filter((entry) => existsSync(join(process.cwd(), 'src', `${entry}.ts`)));
/**
 * Packages loaded from node_modules at run time instead of bundled: argon2 finds its compiled addon
 * next to its own package.json. Each must be a dependency of the service that imports it, so that
 * `pnpm deploy` (the Dockerfiles) puts it in the image's node_modules.
 */
const EXTERNAL = ['argon2'];
/**
 * Files a bundled package reads next to its own code at run time (through `__dirname`), copied to
 * bundle/assets/<package>/ where that package's `__dirname` now points: Swagger UI's page and scripts.
 */
const ASSETS: Record<string, string[]> = { '@fastify/swagger-ui': ['static'] };

const serviceDir = process.cwd();
const outdir = join(serviceDir, 'bundle');

/** The package `file` belongs to (its name and folder) and the folder of `file` inside it, from the last node_modules of its path. */
function packageOf(file: string): { name: string; root: string; dir: string } | undefined {
  const marker = `${sep}node_modules${sep}`;
  const at = file.lastIndexOf(marker);
  if (at < 0) return undefined;
  const parts = file.slice(at + marker.length).split(sep);
  const nameParts = parts[0]!.startsWith('@') ? 2 : 1;
  const name = parts.slice(0, nameParts).join('/');
  return { name, root: file.slice(0, at + marker.length) + parts.slice(0, nameParts).join(sep), dir: parts.slice(nameParts, -1).join('/') };
}

/**
 * Two rewrites of package files as they are read (the source map then points into the rewritten
 * text: columns after an escaped character on its line shift by a few):
 * - CommonJS packages find their own files through `__dirname`, which an ES module bundle does not
 *   define: each package file that names it gets its own, pointing into bundle/assets/<package>/.
 * - Characters outside ASCII are written as `\u` escapes. esbuild leaves some as they are (one `µ`
 *   in a regular expression of nats.js), and one such character makes V8 keep the whole bundle's
 *   source as a two-byte string: 8 MiB more for payments-service's 4 MiB file.
 */
const packageFiles: Plugin = {
  name: 'package-files',
  setup(bundle) {
    bundle.onLoad({ filter: /[\\/]node_modules[\\/].*\.[cm]?js$/ }, async (args) => {
      let source = await readFile(args.path, 'utf8');
      const owner = packageOf(args.path);
      const names = /\b__(dirname|filename)\b/.test(source);
      const nonAscii = /[\u0080-\uffff]/.test(source);
      if (!owner || (!names && !nonAscii)) return undefined;
      if (nonAscii) source = source.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
      if (names) {
        const dir = JSON.stringify(`/${owner.name}${owner.dir ? `/${owner.dir}` : ''}`);
        const file = JSON.stringify(`/${args.path.split(sep).at(-1)}`);
        // On the file's first line, so that the source map's lines stay those of the file.
        source = `var __dirname = __bundleAssets + ${dir}, __filename = __dirname + ${file}; ${source}`;
      }
      return { contents: source, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

await rm(outdir, { recursive: true, force: true });
/** Every bundled package's folder, by name. */
const bundled = new Map<string, string>();
for (const entry of ENTRIES) {
  const result = await build({
    entryPoints: { [entry]: join(serviceDir, 'src', `${entry}.ts`) },
    absWorkingDir: serviceDir,
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    // Workspace packages from their TypeScript sources: the source map then leads to src/*.ts.
    conditions: ['@holdfast/source'],
    external: EXTERNAL,
    plugins: [packageFiles],
    // Dynamic imports (the tracing SDK, loaded only when tracing is on) stay out of the entry's file.
    splitting: true,
    chunkNames: '[name]-[hash]',
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'linked',
    // Stack traces need the mappings only; the sources themselves are in the repository.
    sourcesContent: false,
    metafile: true,
    logLevel: 'warning',
    banner: {
      js: [
        "import { createRequire as __createRequire } from 'node:module';",
        "import { fileURLToPath as __fileURLToPath } from 'node:url';",
        // `require` of the CommonJS packages inside the bundle (node: built-ins, JSON).
        'const require = __createRequire(import.meta.url);',
        "const __bundleAssets = __fileURLToPath(new URL('assets', import.meta.url));",
      ].join(' '),
    },
  });
  for (const input of Object.keys(result.metafile.inputs)) {
    const owner = packageOf(join(serviceDir, input));
    if (owner) bundled.set(owner.name, owner.root);
  }
}
for (const [name, folders] of Object.entries(ASSETS)) {
  const root = bundled.get(name);
  if (!root) continue;
  for (const folder of folders) await cp(join(root, folder), join(outdir, 'assets', name, folder), { recursive: true });
}
