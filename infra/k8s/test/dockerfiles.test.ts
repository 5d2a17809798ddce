// The Dockerfiles, checked without building them (no daemonless builder can build them here:
// infra/docker/README.md): linted by dockerlinter (hadolint's rules, with ShellCheck on each RUN;
// ADR 57), and their runtime stage checked instruction by instruction against the manifests and the
// bundles the services' builds produce.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kustomizationDir, render } from '../src/kustomize.ts';

const repo = kustomizationDir('..', '..');
const linter = join(dirname(createRequire(import.meta.url).resolve('dockerlinter/package.json')), 'bin', 'dockerfilelinter.js');
// ./scripts/test installs Debian's shellcheck when it is missing and names it in HOLDFAST_SHELLCHECK.
const shellcheckDir = process.env.HOLDFAST_SHELLCHECK ? dirname(process.env.HOLDFAST_SHELLCHECK) : undefined;

interface Finding {
  lineNumber: number;
  code: string;
  level: string;
  message: string;
}
function lint(file: string): Finding[] {
  const env = { ...process.env, PATH: [shellcheckDir, process.env.PATH].filter(Boolean).join(delimiter) };
  let out: string;
  try {
    out = execFileSync(process.execPath, [linter, '-f', file, '-j'], { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`dockerlinter ${file} failed: ${e.stderr || e.stdout || e.message}`);
  }
  return out.trim() === '' ? [] : (JSON.parse(out) as Finding[]);
}

/** How a LABEL names a build argument: `${NAME}`. */
const buildArg = (name: string) => `\${${name}}`;

interface Instruction {
  keyword: string;
  args: string;
}
/** The stages of a Dockerfile: its instructions, continuation lines joined, comments dropped. */
function stages(text: string): { from: string; name?: string; instructions: Instruction[] }[] {
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  const out: { from: string; name?: string; instructions: Instruction[] }[] = [];
  for (const line of lines) {
    const match = /^\s*([A-Z]+)\s+(.*)$/.exec(line);
    if (!match || line.trimStart().startsWith('#')) continue;
    const [, keyword, args] = match as unknown as [string, string, string];
    if (keyword === 'FROM') {
      const [from, , name] = args.split(/\s+/);
      out.push({ from: from as string, name, instructions: [] });
    } else out.at(-1)?.instructions.push({ keyword, args: args.replace(/\s+/g, ' ').trim() });
  }
  return out;
}

const staging = render(kustomizationDir('overlays', 'staging'));

describe('the Dockerfile linter', () => {
  it('reports a bad Dockerfile: hadolint-style rules and ShellCheck on RUN both run', () => {
    const dir = mkdtempSync(join(tmpdir(), 'holdfast-lint-'));
    const bad = join(dir, 'bad.Dockerfile');
    writeFileSync(bad, 'FROM node:latest\nRUN cd /app && echo $HOME/x\nUSER root\nCMD node main.js\n');
    expect(lint(bad).map((f) => f.code)).toEqual(expect.arrayContaining(['EF0003', 'ER0003', 'SC2086', 'EU0001', 'EJ0002']));
  });
});

describe.each(['payments-service', 'workspace-service', 'webhook-dispatcher', 'chain-indexer'])('infra/docker/%s.Dockerfile', (service) => {
  const file = join(repo, 'infra', 'docker', `${service}.Dockerfile`);
  const text = readFileSync(file, 'utf8');
  const [build, runtime] = stages(text);
  if (!build || !runtime) throw new Error(`${file}: expected a build and a runtime stage`);
  const of = (keyword: string) => runtime.instructions.filter((i) => i.keyword === keyword);
  const deployment = staging.find((o) => o.kind === 'Deployment' && o.metadata.name === service) as unknown as {
    spec: {
      template: {
        spec: {
          securityContext: { runAsUser: number; runAsGroup: number };
          containers: { ports: { containerPort: number }[]; volumeMounts: { mountPath: string }[] }[];
        };
      };
    };
  };
  const pod = deployment.spec.template.spec;

  it('passes dockerlinter with no finding at all', () => {
    expect(lint(file)).toEqual([]);
  });

  it('carries the OCI labels, the version, revision and date from build arguments', () => {
    const labels = Object.fromEntries(
      [
        ...of('LABEL')
          .map((l) => l.args)
          .join(' ')
          .matchAll(/(org\.opencontainers\.image\.[a-z.]+)="([^"]*)"/g),
      ].map((m) => [m[1], m[2]]),
    );
    expect(labels).toMatchObject({
      'org.opencontainers.image.title': `holdfast-${service}`,
      'org.opencontainers.image.description': expect.stringMatching(/^Holdfast /),
      'org.opencontainers.image.vendor': 'Holdfast',
      'org.opencontainers.image.version': buildArg('VERSION'),
      'org.opencontainers.image.revision': buildArg('REVISION'),
      'org.opencontainers.image.created': buildArg('CREATED'),
      'org.opencontainers.image.source': buildArg('SOURCE'),
    });
  });

  it('ships no package manager and no compiler: npm, npx, corepack removed, nothing installed, only the assembled /app copied', () => {
    expect(runtime.from).toBe(build.from);
    const runs = of('RUN').map((r) => r.args);
    expect(runs[0]).toMatch(
      /^rm -rf \/usr\/local\/lib\/node_modules \/usr\/local\/bin\/npm \/usr\/local\/bin\/npx \/usr\/local\/bin\/corepack /,
    );
    for (const run of runs.slice(1)) expect(run).not.toMatch(/\b(npm|npx|pnpm|corepack|yarn|tsc|apt-get)\b/);
    // Root-owned (no --chown): the user the process runs as cannot write its own code.
    expect(of('COPY').map((c) => c.args)).toEqual(['--from=build /app ./']);
  });

  it('assembles /app from what the bundle reads at run time, without node_modules beyond its externals', () => {
    const assemble = build.instructions.filter((i) => i.keyword === 'RUN').at(-1)?.args ?? '';
    const bundleDir = join(repo, 'services', service, 'bundle');
    const bundle = ['main.js', 'migrate.js'].map((f) => readFileSync(join(bundleDir, f), 'utf8')).join('\n');
    // Folders next to bundle/ that the code opens (new URL("../x", import.meta.url)).
    const folders = [...new Set([...bundle.matchAll(/new URL\("\.\.\/([a-z-]+)\/?"/g)].map((m) => m[1] as string))];
    expect(folders).toContain('drizzle');
    for (const folder of ['package.json', 'bundle', ...folders]) expect(assemble).toContain(`/out/${folder}`);
    expect(assemble).not.toMatch(/\/out\/(dist|node_modules )/);
    // Bare imports the bundler left external must be copied into node_modules, and only those.
    const externals = [...new Set([...bundle.matchAll(/from"([a-z@][^":]*)"/g)].map((m) => m[1] as string))].filter(
      (name) =>
        !/^(async_hooks|child_process|crypto|events|fs|net|os|path|perf_hooks|process|stream|tls|util|zlib|http|https|url|module|worker_threads|dns|buffer|assert|tty|v8)$/.test(
          name,
        ),
    );
    for (const name of externals) expect(assemble).toContain(`/out/node_modules/.pnpm/${name}@*/node_modules/.`);
    if (externals.length === 0) expect(assemble).not.toContain('node_modules');
  });

  it('runs as the manifests user, by number, on the port the Deployment probes', () => {
    expect(of('USER').at(-1)?.args).toBe(`${pod.securityContext.runAsUser}:${pod.securityContext.runAsGroup}`);
    expect(of('EXPOSE').map((e) => Number(e.args))).toEqual([pod.containers[0]?.ports[0]?.containerPort]);
    // The only directory the user may write is a volume's mount point.
    const writable = of('RUN').flatMap((r) => [...r.args.matchAll(/chown 1000:1000 (\S+)/g)].map((m) => m[1]));
    const mounts = pod.containers[0]?.volumeMounts.map((m) => m.mountPath) ?? [];
    for (const dir of writable) expect(mounts).toContain(dir);
  });
});

describe('infra/docker/build-local.sh', () => {
  it('passes ShellCheck', () => {
    const shellcheck = process.env.HOLDFAST_SHELLCHECK ?? 'shellcheck';
    expect(execFileSync(shellcheck, ['-f', 'gcc', join(repo, 'infra', 'docker', 'build-local.sh')], { encoding: 'utf8' })).toBe('');
  });
});
