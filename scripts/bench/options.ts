// What every benchmark script reads from its command line (`--name value`, `--flag`) and environment
// (the PostgreSQL and NATS it runs against, ./scripts/start's defaults otherwise), and where it writes.
import { join } from 'node:path';

/** The readers of one command line (the words after the script's name). */
export function optionsOf(args: string[]) {
  /** The value after `--name`, or undefined when the option is absent. */
  const stringOption = (name: string): string | undefined => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  /** The number after `--name`, or `fallback` when the option is absent; anything else than a number stops the script. */
  const numberOption = (name: string, fallback: number): number => {
    const value = stringOption(name);
    if (value === undefined) return fallback;
    const number = Number(value);
    if (value.trim() === '' || !Number.isFinite(number)) throw new Error(`--${name} takes a number, not ${JSON.stringify(value)}`);
    return number;
  };
  /** Whether `--name` was given. */
  const flag = (name: string): boolean => args.includes(`--${name}`);
  return { stringOption, numberOption, flag };
}

/** This process's command line: `--name value` (stringOption, numberOption) and `--name` (flag). */
export const { stringOption, numberOption, flag } = optionsOf(process.argv.slice(2));

/** Node flags for a server process, from an environment variable (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"). */
export const nodeArgsFrom = (variable: string): string[] => process.env[variable]?.split(' ').filter(Boolean) ?? [];

/**
 * Settings for a measured service from a variable of `NAME=value` words (e.g.
 * BENCH_PAYMENTS_ENV="PAYMENTS_CREATION_GROUP_MAX=8"), to compare settings in one sitting.
 */
export const envFrom = (variable: string): Record<string, string> =>
  Object.fromEntries(
    nodeArgsFrom(variable).map((word) => {
      const at = word.indexOf('=');
      if (at <= 0) throw new Error(`${variable}: "${word}" is not NAME=value`);
      return [word.slice(0, at), word.slice(at + 1)];
    }),
  );

export const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/holdfast';
export const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/** The repository's root folder. */
export const root = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');
/** The file each benchmark's section goes into with --write. */
export const benchmarksFile = join(root, 'docs', 'benchmarks.md');
