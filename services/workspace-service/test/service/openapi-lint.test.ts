import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PAGE_MAX } from '@holdfast/contracts';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, type Json, startHarness } from '../support/harness.js';

// Both OpenAPI documents, as the real services serve them at /openapi.json, pass Spectral's
// `spectral:oas` and Redocly's `recommended` rules with no error and no warning (issue 14; why
// these two linters: docs/adr). Both run offline: no telemetry, no update check.
const run = promisify(execFile);
const BIN = join(import.meta.dirname, '..', '..', 'node_modules', '.bin');
const CONFIG = join(import.meta.dirname, '..', 'support', 'files', 'openapi');
const OFFLINE = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_UPDATE_NOTIFIER: '1' };

let h: Harness;
let dir: string;
const documents = ['payments', 'workspace'] as const;

beforeAll(async () => {
  h = await startHarness({}, { peers: true });
  dir = await mkdtemp(join(tmpdir(), 'hf-openapi-lint-'));
  const urls = { payments: h.peers!.payments.url, workspace: h.url };
  for (const name of documents) {
    const res = await request(`${urls[name]}/openapi.json`);
    expect(res.statusCode).toBe(200);
    await writeFile(join(dir, `${name}.json`), await res.body.text());
  }
  // Redocly reads its ignore file beside its config, keyed by the linted file's relative path.
  await copyFile(join(CONFIG, 'redocly.yaml'), join(dir, 'redocly.yaml'));
  await copyFile(join(CONFIG, '.redocly.lint-ignore.yaml'), join(dir, '.redocly.lint-ignore.yaml'));
}, 120_000);

afterAll(async () => {
  await h?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A linter's exit code is non-zero on findings; its JSON report is what is asserted. */
async function output(file: string, args: string[]): Promise<string> {
  try {
    return (await run(join(BIN, file), args, { cwd: dir, env: OFFLINE, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    if (failed.stdout) return failed.stdout;
    throw new Error(`${file} failed: ${failed.stderr ?? String(error)}`);
  }
}

// The documents are kept in the repository (docs/api/openapi/): integrators read them there, and
// every change of the API surface shows in review as a change of these files. After an intended
// change, write them anew with `HOLDFAST_WRITE_OPENAPI=1 pnpm exec vitest run test/service/openapi-lint.test.ts`
// (which also writes the SDK's generated types and the Postman collection from them).
const COMMITTED = join(import.meta.dirname, '..', '..', '..', '..', 'docs', 'api', 'openapi');

// Written from the documents with them: the SDK's generated types (ADR 59) and the Postman
// collection, each checked against the committed documents by a test of packages/sdk.
afterAll(async () => {
  if (process.env.HOLDFAST_WRITE_OPENAPI !== '1') return;
  const scripts = join(import.meta.dirname, '..', '..', '..', '..', 'packages', 'sdk', 'scripts');
  for (const script of ['generate-types.mjs', 'postman.mjs']) await promisify(execFile)(process.execPath, [join(scripts, script)]);
});

describe.each(documents)('the %s OpenAPI document', (name) => {
  it('is the one in docs/api/openapi (the API surface changes only on purpose)', async () => {
    const served = `${JSON.stringify(JSON.parse(await readFile(join(dir, `${name}.json`), 'utf8')), null, 2)}\n`;
    const file = join(COMMITTED, `${name}.json`);
    if (process.env.HOLDFAST_WRITE_OPENAPI === '1') await writeFile(file, served);
    expect(served).toBe(await readFile(file, 'utf8'));
  });

  it('declares the statuses every operation really answers (404 and 414 with a path id, 413 and 415 with a body) and the page maximum', async () => {
    const doc = JSON.parse(await readFile(join(dir, `${name}.json`), 'utf8'));
    const missing: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
      for (const [method, operation] of Object.entries(operations)) {
        const needed = ['400', '429', '500', '503'];
        if (path.includes('{')) needed.push('404', '414');
        if (operation.requestBody) needed.push('413', '415');
        for (const status of needed) if (!operation.responses[status]) missing.push(`${method.toUpperCase()} ${path} ${status}`);
        if (!operation.security) missing.push(`${method.toUpperCase()} ${path} security`);
        const page = (operation.parameters ?? []).find((p: Json) => p.in === 'query' && p.name === 'page');
        if (page && page.schema?.maximum !== PAGE_MAX) missing.push(`${method.toUpperCase()} ${path} page maximum ${PAGE_MAX}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("passes Spectral's spectral:oas with no error and no warning", async () => {
    const report = JSON.parse(
      await output('spectral', ['lint', '--ruleset', join(CONFIG, 'spectral.yaml'), '--format', 'json', '--quiet', `${name}.json`]),
    ) as { code: string; message: string; path: string[]; severity: number }[];
    // Severity 0 is an error, 1 a warning (2 and 3 are information and hints).
    const findings = report.filter((r) => r.severity <= 1).map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`);
    expect(findings).toEqual([]);
  }, 120_000);

  it("passes Redocly's recommended rules with no error and no warning", async () => {
    const raw = await output('redocly', ['lint', '--config', 'redocly.yaml', '--format', 'json', `${name}.json`]);
    const report = JSON.parse(raw.slice(raw.indexOf('{'))) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string; severity: string; location: { pointer: string }[] }[];
    };
    const findings = report.problems
      .filter((p) => p.severity === 'error' || p.severity === 'warn')
      .map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    expect(findings).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 120_000);
});
