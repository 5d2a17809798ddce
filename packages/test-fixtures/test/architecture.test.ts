import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { type WorkspaceEndpoint, workspaceEndpoints } from '@holdfast/contracts';
import { repoRoot, serviceMigrations } from '@holdfast/db/testing';
import { describe, expect, it } from 'vitest';

// "A process never reads or writes another's schema": checked on what each service ships.
const services = serviceMigrations();

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && d.name.endsWith(suffix))
    .map((d) => join(d.parentPath, d.name));
}

/** The source folders (`subs`) of every service and of the packages not skipped, and scripts/ when asked. */
function sourceDirs(options: { subs?: string[]; skip?: string[]; scripts?: boolean } = {}): string[] {
  const subs = options.subs ?? ['src'];
  return [
    ...services.flatMap(({ service }) => subs.map((sub) => join(repoRoot(), 'services', service, sub))),
    ...readdirSync(join(repoRoot(), 'packages'), { withFileTypes: true })
      .filter((d) => d.isDirectory() && !(options.skip ?? []).includes(d.name))
      .flatMap((d) => subs.map((sub) => join(repoRoot(), 'packages', d.name, sub))),
    ...(options.scripts ? [join(repoRoot(), 'scripts')] : []),
  ].filter((dir) => existsSync(dir));
}

describe('schema ownership', () => {
  it('finds the four services and their schemas', () => {
    expect(services.map((s) => s.schemaName).sort()).toEqual(['indexer', 'payments', 'webhooks', 'workspace']);
  });

  it.each(services)('$service migrations touch only schema $schemaName', ({ schemaName, migrationsFolder }) => {
    for (const file of filesUnder(migrationsFolder, '.sql')) {
      const qualified = [...readFileSync(file, 'utf8').matchAll(/"([a-z_]+)"\."[a-z_]+"/g)].map((m) => m[1]);
      expect(new Set(qualified), file).toEqual(new Set([schemaName]));
    }
  });

  it.each(services)('$service source declares no schema but its own and imports no other service', ({ service, schemaName }) => {
    const src = join(repoRoot(), 'services', service, 'src');
    for (const file of filesUnder(src, '.ts')) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/pgSchema\(\s*'([a-z_]+)'\s*\)/g)) expect(match[1], file).toBe(schemaName);
      for (const match of text.matchAll(/from '@holdfast\/([a-z-]+)'/g)) {
        expect(
          ['payments-service', 'workspace-service', 'webhook-dispatcher', 'chain-indexer'].filter((s) => s !== service),
          file,
        ).not.toContain(match[1]);
      }
    }
  });
});

// Outbound requests to URLs a tenant chose go through @holdfast/outbound (docs/adr/0016): the one
// place that classifies addresses and builds the guarded connector. A service that builds its own
// would be a second, diverging SSRF policy.
describe('outbound safety', () => {
  it.each(services)('$service builds no address list or undici connector of its own', ({ service }) => {
    const src = join(repoRoot(), 'services', service, 'src');
    for (const file of filesUnder(src, '.ts')) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toMatch(/\bbuildConnector\b|\bBlockList\b/);
    }
  });

  it('packages import no service', () => {
    const packages = join(repoRoot(), 'packages');
    const dirs = readdirSync(packages, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .flatMap((d) => ['src', 'test'].map((sub) => join(packages, d.name, sub)))
      .filter((dir) => existsSync(dir));
    for (const file of dirs.flatMap((dir) => filesUnder(dir, '.ts'))) {
      for (const match of readFileSync(file, 'utf8').matchAll(/from '@holdfast\/([a-z-]+)/g)) {
        expect(['payments-service', 'workspace-service', 'webhook-dispatcher', 'chain-indexer'], file).not.toContain(match[1]);
      }
    }
  });
});

// Stream, consumer and subject names come from their constants in @holdfast/contracts (STREAMS,
// CONSUMERS, eventSubject, chainSubject): a literal in a service drifts from the contract unnoticed.
describe('names from their constants', () => {
  it.each(services)('$service names no stream, durable consumer or filter subject with a literal', ({ service }) => {
    const src = join(repoRoot(), 'services', service, 'src');
    for (const file of filesUnder(src, '.ts')) {
      expect(readFileSync(file, 'utf8'), file).not.toMatch(/\b(stream|durable|filterSubject):\s*['`]/);
    }
  });
});

// "Modules depend in one direction": a folder under src/modules (a module, or a part of one, such
// as workspace's wallets/providers) never imports, directly or through others, a folder that
// imports it. Two modules that need each other share a lower module instead, or the lower one
// declares the port the higher one implements.
describe('module dependencies', () => {
  /** Folder -> folders it imports, with one import that makes each edge (for the message). */
  function moduleGraph(modulesDir: string): Map<string, Map<string, string>> {
    const graph = new Map<string, Map<string, string>>();
    for (const file of filesUnder(modulesDir, '.ts')) {
      const from = relative(modulesDir, dirname(file));
      for (const match of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s+'(\.{1,2}\/[^']+)'/g)) {
        const to = relative(modulesDir, dirname(resolve(dirname(file), match[1] as string)));
        if (to === from || to.startsWith('..')) continue;
        const edges = graph.get(from) ?? new Map<string, string>();
        if (!edges.has(to)) edges.set(to, `${relative(modulesDir, file)} imports ${match[1]}`);
        graph.set(from, edges);
      }
    }
    return graph;
  }

  /** Every strongly connected set of two or more folders (Tarjan), each as the imports that close it. */
  function cycles(graph: Map<string, Map<string, string>>): string[][] {
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const found: string[][] = [];
    const visit = (node: string) => {
      index.set(node, index.size);
      low.set(node, index.get(node) as number);
      stack.push(node);
      for (const next of graph.get(node)?.keys() ?? []) {
        if (!index.has(next)) {
          visit(next);
          low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
        } else if (stack.includes(next)) low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
      if (low.get(node) !== index.get(node)) return;
      const members: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop() as string;
        members.push(member);
      } while (member !== node);
      if (members.length > 1) {
        found.push(members.flatMap((m) => [...(graph.get(m) ?? [])].filter(([to]) => members.includes(to)).map(([, why]) => why)));
      }
    };
    for (const node of graph.keys()) if (!index.has(node)) visit(node);
    return found;
  }

  it('finds a cycle when there is one', () => {
    const graph = new Map([
      ['a', new Map([['b', 'a/x.ts imports ../b/y.js']])],
      ['b', new Map([['c', 'b/y.ts imports ../c/z.js']])],
      ['c', new Map([['a', 'c/z.ts imports ../a/x.js']])],
      ['d', new Map([['a', 'd/w.ts imports ../a/x.js']])],
    ]);
    expect(cycles(graph).map((cycle) => cycle.sort())).toEqual([
      ['a/x.ts imports ../b/y.js', 'b/y.ts imports ../c/z.js', 'c/z.ts imports ../a/x.js'],
    ]);
  });

  it.each(services)('$service modules import each other in one direction only', ({ service }) => {
    const modulesDir = join(repoRoot(), 'services', service, 'src', 'modules');
    expect(cycles(moduleGraph(modulesDir))).toEqual([]);
  });
});

// Modules have public faces (issue 35): another module uses a module through its `index.ts`, never
// through its files, so what a module offers is one list and its repository and tables stay its
// own. A module's own folders (workspace's wallets/providers) import each other freely, and a
// table's foreign key names the parent table's file: the schema is one (drizzle-kit reads it
// whole), and a tables file that imported a face would load the module's code with the schema.
describe('module faces', () => {
  const TABLES = /(^|[/-])tables\.[jt]s$/;
  it.each(services)('$service modules import another module only through its index.ts', ({ service }) => {
    const modulesDir = join(repoRoot(), 'services', service, 'src', 'modules');
    const offenders = filesUnder(modulesDir, '.ts').flatMap((file) => {
      const own = relative(modulesDir, file).split('/')[0];
      return [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s+'(\.{1,2}\/[^']+)'/g)].flatMap((m) => {
        const target = relative(modulesDir, resolve(dirname(file), m[1] as string));
        const [module, ...rest] = target.split('/');
        if (target.startsWith('..') || module === own || rest.join('/') === 'index.js') return [];
        if (TABLES.test(file) && TABLES.test(target)) return [];
        const what = /(^|\/|-)(repository|tables)\.js$/.test(target)
          ? `the ${target.endsWith('repository.js') ? 'repository' : 'tables'}`
          : 'a file';
        return [`${relative(modulesDir, file)} imports ${what} of ${module} (${m[1]}): import ../${module}/index.js`];
      });
    });
    expect(offenders).toEqual([]);
  });
});

// One route style (issue 19): a module's routes are Fastify plugins (`xRoutes(service)`, registered
// with `app.register`), and a route says what it asks of its caller in `config.access`, in both
// APIs (docs/engineering.md). A `registerXRoutes(app, ...)` function or a `config.auth` would be
// the second way back.
describe('one route style', () => {
  it.each(services)('$service routes are plugins and say config.access', ({ service }) => {
    const src = join(repoRoot(), 'services', service, 'src');
    const offenders = filesUnder(src, '.ts').flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return [
        ...[...text.matchAll(/export (?:async )?function (\w*Routes)\(\s*\w+\s*:\s*HttpApp\b/g)].map(
          (m) => `${relative(src, file)}: ${m[1]} takes the app (export a plugin: xRoutes(service) => async (app) => ...)`,
        ),
        ...[...text.matchAll(/config:\s*\{[^}]*?\bauth:/g)].map(() => `${relative(src, file)}: config.auth (say config.access)`),
      ];
    });
    expect(offenders).toEqual([]);
  });
});

// One route declaration (issue 35): what an endpoint asks of its caller (access, roles), its tier,
// its audit action and its twins are written once, in its catalogue entry; a route file gives only
// the handler, through `serveRoutes(app, surface, [route(api.x, handler), ...])` of
// @holdfast/http-kit, which serves each entry with its config and (on the Workspace API) wraps the
// answer in the envelope. A `serveEndpoint(` or `app.get(` of a module, a `config` at the call
// site, or an `envelope(request, ...)` of a workspace handler would be the second way back.
describe('one route declaration', () => {
  const routeFiles = (service: string) => {
    const modules = join(repoRoot(), 'services', service, 'src', 'modules');
    return filesUnder(modules, '.ts')
      .filter((file) => file.endsWith('/routes.ts') || dirname(file).endsWith('/routes'))
      .map((file) => ({ name: relative(modules, file), text: readFileSync(file, 'utf8') }));
  };

  /** What a route file of workspace-service may not say: each pattern with the way it should be said. */
  const WORKSPACE_OFFENCES: [RegExp, string][] = [
    [/\bserveEndpoint\(/g, 'serveEndpoint (serve the module through serveRoutes(app, WORKSPACE_SURFACE, [...]))'],
    [
      /\b\w+\.(?:get|post|put|patch|delete|route)(?:<[^>]*>)?\(\s*['`{]/g,
      'a route registered by hand (add it to the catalogue, serve it with serveRoutes)',
    ],
    [
      /\b(?:config|tier|access|roles):|\baudit:\s*[A-Z_]+\./g,
      'a route option of the catalogue (write access, roles, tier and audit in the endpoint entry)',
    ],
    [/\benvelope\(/g, 'envelope( (return the data; the kit wraps it, paged(data, pagination) for a page)'],
  ];

  it('finds an offence when there is one', () => {
    const sample =
      "serveEndpoint(app, api.getUser, { config: { tier: 'admin', roles: ADMIN_ROLES } }, async (request) => envelope(request, 1));" +
      "app.get('/x', async () => 1);";
    expect(WORKSPACE_OFFENCES.filter(([pattern]) => sample.match(pattern)).length).toBe(4);
  });

  it('workspace-service routes are served from the catalogue, through the kit', () => {
    const files = routeFiles('workspace-service');
    expect(files.length).toBeGreaterThan(10);
    const offenders = files.flatMap(({ name, text }) => [
      ...WORKSPACE_OFFENCES.flatMap(([pattern, why]) => [...text.matchAll(pattern)].map(() => `${name}: ${why}`)),
      ...(text.includes('serveRoutes(') ? [] : [`${name}: serves no route through serveRoutes`]),
    ]);
    expect(offenders).toEqual([]);
  });

  it('every mutating Workspace endpoint names the action its audit entries record', () => {
    // Two POSTs change nothing an administrator would look for: a connection probe and a sign-in nonce.
    const unaudited = new Set(['testWalletProviderConnection', 'customerWalletNonce']);
    const missing = (Object.values(workspaceEndpoints) as unknown[])
      .filter((entry): entry is WorkspaceEndpoint => typeof entry === 'object' && entry !== null && 'operationId' in entry)
      .filter((entry) => entry.method !== 'GET' && !entry.audit && !unaudited.has(entry.operationId))
      .map((entry) => `${entry.method} ${entry.path} (${entry.operationId})`);
    expect(missing).toEqual([]);
  });

  it('payments-service routes are served from the catalogue, through the kit', () => {
    const offenders = routeFiles('payments-service').flatMap(({ name, text }) => [
      ...[...text.matchAll(/\bserveEndpoint\(/g)].map(
        () => `${name}: serveEndpoint (serve it through serveRoutes(app, PAYMENTS_SURFACE, [...]))`,
      ),
      ...(text.includes('serveRoutes(') ? [] : [`${name}: serves no route through serveRoutes`]),
    ]);
    expect(offenders).toEqual([]);
  });
});

// One crypto package (issue 19): @holdfast/secrets seals, hashes, MACs and compares for every
// service and package. Ciphers, hashes and MACs of node:crypto anywhere else would be a second,
// diverging way (another key format, another comparison).
describe('one crypto package', () => {
  const CRYPTO =
    /\b(createCipheriv|createDecipheriv|createCipher|createDecipher|createHmac|createHash|timingSafeEqual|scrypt|scryptSync|pbkdf2|pbkdf2Sync|hkdf|hkdfSync|createSign|createVerify|publicEncrypt|privateDecrypt)\b/;
  // The published SDK runs in an integrator's process and carries no workspace package at run
  // time (ADR 24): its verifyWebhook is the receiving side of the dispatcher's signature, and
  // its tests verify real deliveries, so the two cannot drift apart unnoticed.
  const sources = sourceDirs({ skip: ['secrets', 'sdk'], scripts: true });

  it('no source outside packages/secrets uses node:crypto ciphers, hashes or MACs', () => {
    const offenders = sources
      .flatMap((dir) => filesUnder(dir, '.ts'))
      .filter((file) => !file.includes('node_modules'))
      .filter((file) => CRYPTO.test(readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });
});

// The error helpers stand beside the codes (issue 35): `notFound`, `conflict`, `forbidden`,
// `unauthorized`, `validationError` and `boundedText` come from @holdfast/contracts, so a package
// without HTTP says them the same way. The kit's re-export is a step for branches in flight.
describe('error helpers from the contracts', () => {
  const HELPERS = new Set(['notFound', 'conflict', 'forbidden', 'unauthorized', 'validationError', 'boundedText']);
  const sources = sourceDirs({ subs: ['src', 'test'], skip: ['http-kit'], scripts: true });

  it('no source imports an error helper from @holdfast/http-kit', () => {
    const offenders = sources
      .flatMap((dir) => filesUnder(dir, '.ts'))
      .filter((file) => !file.includes('node_modules'))
      .flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*'@holdfast\/http-kit'/g)].flatMap((m) =>
          (m[1] as string)
            .split(',')
            .map(
              (s) =>
                s
                  .trim()
                  .replace(/^type\s+/, '')
                  .split(/\s+as\s+/)[0] as string,
            )
            .filter((name) => HELPERS.has(name))
            .map((name) => `${relative(repoRoot(), file)}: ${name} (import it from @holdfast/contracts)`),
        ),
      );
    expect(offenders).toEqual([]);
  });
});

// One background-work primitive and one leased-job layer (ADR 22, ADR 65, issue 35): a loop is a
// createPollingWorker of @holdfast/runtime, a queue worked row by row is a defineLeasedJob, a
// batch of requests is the runtime's createBatcher. Outside packages/runtime a timer is one of the
// one-shot deadlines below, each with why it is not a loop; a new one fails until it is listed.
describe('background work through the runtime', () => {
  const TIMERS: Record<string, { count: number; why: string }> = {
    'services/chain-indexer/src/modules/indexing/new-heads.ts': {
      count: 2,
      why: 'the reconnect of the newHeads socket (event-driven; the follower polls meanwhile) and the bounded close at stop',
    },
    'services/payments-service/src/modules/event-stream/routes.ts': {
      count: 1,
      why: "one open stream's heartbeat, cleared when it closes",
    },
    'services/payments-service/src/modules/checkout/page/page.ts': {
      count: 3,
      why: "the checkout page's script: it runs in the payer's browser",
    },
    'services/webhook-dispatcher/src/modules/deliveries/worker.ts': {
      count: 1,
      why: 'a wake of the delivery worker at most settleWithinMs after a result',
    },
    'services/workspace-service/src/modules/access/principal-cache.ts': { count: 1, why: "a pending principal's expiry (unref'd)" },
    'packages/db/src/retry.ts': { count: 1, why: 'the jitter before a serialization failure is retried, inside one call' },
    'packages/http-kit/src/starting.ts': { count: 1, why: 'the wait between dependency probes while a process starts' },
    'packages/http-kit/src/health.ts': { count: 1, why: "a readiness check's deadline" },
    'packages/http-kit/src/shutdown.ts': { count: 1, why: "the shutdown's deadline" },
    'packages/messaging/src/nats-server.ts': { count: 1, why: "a NATS probe's deadline" },
  };
  // Not background work of a process: the published SDK and the CLI run in their users' processes,
  // test fixtures in tests.
  const sources = sourceDirs({ skip: ['runtime', 'sdk', 'cli', 'test-fixtures'] });

  it('no setTimeout or setInterval outside packages/runtime but the listed one-shot deadlines', () => {
    const found: Record<string, number> = {};
    for (const file of sources.flatMap((dir) => filesUnder(dir, '.ts'))) {
      const count = [...readFileSync(file, 'utf8').matchAll(/\b(setTimeout|setInterval)\s*\(/g)].length;
      if (count > 0) found[relative(repoRoot(), file)] = count;
    }
    const listed = Object.fromEntries(Object.entries(TIMERS).map(([file, { count }]) => [file, count]));
    // A file over its count, or not listed: use createPollingWorker or createBatcher of @holdfast/runtime.
    expect(found).toEqual(listed);
  });

  /** The service's drizzle tables: export name -> [SQL name, the declaration's text]. */
  function tablesOf(src: string): Map<string, [string, string]> {
    const tables = new Map<string, [string, string]>();
    for (const file of filesUnder(src, '.ts').filter((f) => /(^|[/-])tables\.ts$/.test(f))) {
      const text = readFileSync(file, 'utf8');
      const starts = [...text.matchAll(/export const (\w+) = \w+\.table\(\s*'(\w+)'/g)];
      starts.forEach((m, i) => {
        tables.set(m[1] as string, [m[2] as string, text.slice(m.index, starts[i + 1]?.index ?? text.length)]);
      });
    }
    return tables;
  }

  // Leases that are not a queue's: a request holds its idempotency key's; the dispatcher's delivery
  // worker claims per subscription slot with its own statements (issue 35, item 3, splits it).
  const NOT_JOBS = new Set(['payments.idempotent_requests', 'webhooks.deliveries']);

  it.each(services)('$service: every table with a lease column is the table of a defineLeasedJob', ({ service, schemaName }) => {
    const src = join(repoRoot(), 'services', service, 'src');
    const declared = new Set(
      filesUnder(src, '.ts').flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(/defineLeasedJob(?:<[^>]*>)?\(\{[\s\S]*?\btable:\s*(\w+)/g)].map((m) => m[1] as string),
      ),
    );
    const undeclared = [...tablesOf(src)]
      .filter(([, [, text]]) => /'(lease_until|claimed_until)'/.test(text))
      .map(([name, [sqlName]]) => [name, `${schemaName}.${sqlName}`])
      .filter(([name, qualified]) => !declared.has(name as string) && !NOT_JOBS.has(qualified as string));
    expect(undeclared).toEqual([]);
  });

  it.each(services)('$service: a claim for a lease is made only by a leased-job worker', ({ service }) => {
    const src = join(repoRoot(), 'services', service, 'src');
    const files = filesUnder(src, '.ts');
    const leasedClaims = files
      .filter((file) => file.endsWith('repository.ts'))
      .flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(/async (claim\w*)\(([^)]*)\)/g)].filter((m) =>
          /\blease(Seconds|Ms)\b/.test(m[2] as string),
        ),
      )
      .map((m) => m[1] as string);
    const offenders = files
      .filter((file) => !file.endsWith('repository.ts') && file !== join(src, 'modules/deliveries/service.ts'))
      .flatMap((file) => {
        const text = readFileSync(file, 'utf8');
        if (text.includes('createLeasedJobWorker(')) return [];
        return leasedClaims.filter((name) => new RegExp(`\\.${name}\\(`).test(text)).map((name) => `${relative(src, file)}: ${name}`);
      });
    expect(offenders).toEqual([]);
  });
});

describe('decision records', () => {
  const adrDir = join(repoRoot(), 'docs', 'adr');
  const numbers = readdirSync(adrDir)
    .map((name) => /^(\d{4})-.*\.md$/.exec(name)?.[1])
    .filter((n): n is string => n !== undefined);

  it('each number names one record', () => {
    const seen = new Map<string, number>();
    for (const n of numbers) seen.set(n, (seen.get(n) ?? 0) + 1);
    expect([...seen].filter(([, count]) => count > 1).map(([n]) => n)).toEqual([]);
  });

  it('every gap below the highest number is listed in docs/adr/README.md', () => {
    const readme = readFileSync(join(adrDir, 'README.md'), 'utf8');
    const highest = Math.max(...numbers.map(Number));
    const gaps = Array.from({ length: highest }, (_, i) => String(i + 1).padStart(4, '0')).filter((n) => !numbers.includes(n));
    expect(gaps.filter((n) => !readme.includes(n))).toEqual([]);
  });
});

describe('commit subjects', () => {
  // The rule began after d99ede2; older subjects stay as they landed. A shallow clone without
  // that commit has nothing to check.
  const git = (args: string[]) => spawnSync('git', args, { cwd: repoRoot(), encoding: 'utf8' });
  const since = 'd99ede2';

  it('every subject after the rule began is at most 72 characters', () => {
    if (git(['cat-file', '-e', `${since}^{commit}`]).status !== 0) return;
    const subjects = git(['log', '--format=%s', `${since}..HEAD`])
      .stdout.split('\n')
      .filter(Boolean);
    expect(subjects.filter((s) => s.length > 72)).toEqual([]);
  });
});

describe('tests mirror src', () => {
  // docs/engineering.md: a module's tests in test/<module>/, the service's as a whole in
  // test/service/, shared helpers in test/support/; nothing at test/'s root.
  it.each(services)('$service keeps no test file at test/ root and a folder per module tested', ({ service }) => {
    const testDir = join(repoRoot(), 'services', service, 'test');
    const modules = readdirSync(join(repoRoot(), 'services', service, 'src', 'modules'));
    const entries = readdirSync(testDir, { withFileTypes: true });
    expect(entries.filter((e) => e.isFile() && e.name.endsWith('.test.ts')).map((e) => e.name)).toEqual([]);
    const folders = entries.filter((e) => e.isDirectory()).map((e) => e.name);
    expect(folders.filter((f) => f !== 'service' && f !== 'support' && !modules.includes(f))).toEqual([]);
  });
});
