import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import './formats.js';

export type Env = Record<string, string | undefined>;

/** Raised when the environment is unusable; `problems` holds one human line per bad or missing value. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * The variables of a `.env` file (when present) under those of the real environment: a value
 * exported in the shell always wins over the file, as operators expect.
 */
export function withDotEnv(env: Env, path = '.env'): Env {
  let fromFile: Env = {};
  try {
    fromFile = parseEnv(readFileSync(path, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return { ...fromFile, ...env };
}

const SECRET_NAME = /KEY|SECRET|PASSWORD|TOKEN|HEADERS/i;

function shown(name: string, value: unknown): string {
  if (value === undefined) return 'missing';
  if (SECRET_NAME.test(name)) return 'got a value (hidden)';
  const text = String(value);
  // Never echo a password embedded in a URL.
  return `got "${text.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@')}"`;
}

/**
 * Reads, converts and checks the variables a process declares. Unknown variables are ignored;
 * empty strings count as unset so that `FOO=` in a .env file falls back to the default.
 * `refine` adds cross-field rules (for example "required outside local").
 */
export function loadConfig<S extends TObject>(schema: S, env: Env, refine?: (config: Static<S>) => string[]): Static<S> {
  const input: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  const converted = Value.Convert(schema, Value.Default(schema, input));
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const error of Value.Errors(schema, converted)) {
    const name = error.path.replace(/^\//, '').split('/')[0] || '(root)';
    if (seen.has(name)) continue;
    seen.add(name);
    const fieldSchema = (schema.properties as Record<string, TSchema>)[name];
    const expected = (fieldSchema?.errorMessage as string | undefined) ?? fieldSchema?.description ?? error.message;
    problems.push(`${name}: ${expected} (${shown(name, input[name])})`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const config = converted as Static<S>;
  const refined = refine?.(config) ?? [];
  if (refined.length > 0) throw new ConfigError(refined);
  return config;
}

/** Prints each problem on its own line and exits non-zero; anything else is rethrown. */
export function exitOnConfigError<T>(load: () => T, service: string): T {
  try {
    return load();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) process.stderr.write(`${service}: configuration error: ${problem}\n`);
    process.exit(1);
  }
}
