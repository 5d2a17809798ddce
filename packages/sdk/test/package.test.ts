import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from './stack.js';

// The package as published: `pnpm pack` of the built SDK, unpacked into a project of its own with
// only its declared dependency, no workspace package. Its README example runs as written against
// the services, and a TypeScript consumer type-checks against the shipped declarations.

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'holdfast-sdk-'));
const installed = join(work, 'node_modules', '@holdfast', 'sdk');
let stack: Stack;

function pnpm(args: string[], cwd: string): string {
  const runner = process.env.npm_execpath;
  return runner && /\.(c?js|mjs)$/.test(runner)
    ? execFileSync(process.execPath, [runner, ...args], { cwd, encoding: 'utf8' })
    : execFileSync('pnpm', args, { cwd, encoding: 'utf8' });
}

beforeAll(async () => {
  pnpm(['pack', '--pack-destination', work], packageDir);
  const tarball = readdirSync(work).find((f) => f.endsWith('.tgz')) as string;
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', join(work, tarball), '-C', installed, '--strip-components=1']);
  // Its dependencies, as npm would install them.
  const typebox = realpathSync(join(packageDir, 'node_modules', '@sinclair', 'typebox'));
  mkdirSync(join(work, 'node_modules', '@sinclair'), { recursive: true });
  symlinkSync(typebox, join(work, 'node_modules', '@sinclair', 'typebox'));
  symlinkSync(realpathSync(join(packageDir, 'node_modules', 'eventsource-parser')), join(work, 'node_modules', 'eventsource-parser'));
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('the packed @holdfast/sdk', () => {
  it('ships dist, README and CHANGELOG only, and no file names an unpublished workspace package', () => {
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['@sinclair/typebox', 'eventsource-parser']);
    expect(JSON.stringify(manifest.exports)).not.toContain('@holdfast/source');
    const files = execFileSync('find', [installed, '-type', 'f'], { encoding: 'utf8' }).trim().split('\n');
    for (const file of files.filter((f) => /\.(js|d\.ts)$/.test(f))) {
      expect(readFileSync(file, 'utf8'), file).not.toMatch(/["']@holdfast\//);
    }
    expect(files.some((f) => f.endsWith('/src/index.ts'))).toBe(false);
  });

  it('runs the README example as written', async () => {
    const made = await fetch(`${stack.paymentsUrl}/api/v1/oauth/clients`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': stack.processes.env.PAYMENTS_BOOTSTRAP_API_KEY as string },
      body: JSON.stringify({ name: 'sdk example', scopes: ['read:transactions', 'move:transactions'] }),
    });
    const client = (await made.json()) as { clientId: string; clientSecret: string };
    const readme = readFileSync(join(installed, 'README.md'), 'utf8');
    const example = /```js\n([\s\S]*?)```/.exec(readme)?.[1] as string;
    writeFileSync(join(work, 'first-payment.mjs'), example);
    const output = execFileSync(process.execPath, ['first-payment.mjs'], {
      cwd: work,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '',
        HOLDFAST_PAYMENTS_URL: stack.paymentsUrl,
        HOLDFAST_CLIENT_ID: client.clientId,
        HOLDFAST_CLIENT_SECRET: client.clientSecret,
      },
    });
    const id = /^created ([0-9a-f-]{36}) pending$/m.exec(output)?.[1];
    expect(id).toBeDefined();
    expect(output).toContain(`${id} 25 USDC pending`);
  });

  it('type-checks a consumer against the shipped declarations, and catches a wrong field', () => {
    const tsc = join(packageDir, 'node_modules', 'typescript', 'bin', 'tsc');
    writeFileSync(
      join(work, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', noEmit: true, types: [] },
        files: ['consumer.ts'],
      }),
    );
    writeFileSync(join(work, 'package.json'), JSON.stringify({ type: 'module' }));
    const good = [
      "import { PaymentsClient, verifyWebhook, type WebhookEvent } from '@holdfast/sdk';",
      "const client = new PaymentsClient({ baseUrl: 'http://127.0.0.1:3001', clientId: 'id', clientSecret: 'secret' });",
      "export async function run(): Promise<string> { const tx = await client.transactions.create({ fromAddress: '0x1', toAddress: '0x2', amount: 1 }); return tx.status; }",
      "export function hook(body: string): string { const e: WebhookEvent = verifyWebhook(body, {}, 'whsec_x'); return e.type === 'transaction.escrowed' ? e.data.escrowAddress : e.id; }",
    ].join('\n');
    writeFileSync(join(work, 'consumer.ts'), good);
    execFileSync(process.execPath, [tsc, '-p', work], { cwd: work, encoding: 'utf8' });
    writeFileSync(join(work, 'consumer.ts'), `${good}\nexport const wrong: number = (await client.transactions.get('x')).amountt;\n`);
    let failure = '';
    try {
      execFileSync(process.execPath, [tsc, '-p', work], { cwd: work, encoding: 'utf8' });
    } catch (error) {
      failure = String((error as { stdout: string }).stdout);
    }
    expect(failure).toContain("Property 'amountt' does not exist");
  });
});
