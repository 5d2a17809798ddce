#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { COMMANDS, type Command, describeError, UsageError } from './commands.js';
import { type Io, processIo } from './output.js';

const GLOBAL_OPTIONS = {
  profile: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'holdfast: the Holdfast command line (Payments API v2 and Workspace API)',
    '',
    'Usage: holdfast <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Options for every command:',
    '  --profile NAME  the stored profile to use (default: $HOLDFAST_PROFILE or "default")',
    '  --json          machine-readable output on stdout (progress stays on stderr)',
    '  --help, -h      this help, or a command’s usage with the command',
    '',
    'Profiles live in $XDG_CONFIG_HOME/holdfast/config.json (~/.config/holdfast/config.json), mode 0600.',
    'Guide: docs/cli.md',
  ].join('\n');
}

/** The command named by the leading words (`transactions list`), and the words after it. */
function find(positionals: string[]): { command: Command; args: string[] } | undefined {
  for (const words of [2, 1]) {
    const command = COMMANDS.find((c) => c.name === positionals.slice(0, words).join(' '));
    if (command) return { command, args: positionals.slice(words) };
  }
  return undefined;
}

/** Runs the CLI; resolves with the exit code (0 ok, 1 the API or network refused, 2 a usage mistake). */
export async function main(argv: string[], io: Io = processIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const leading = argv.filter((a) => !a.startsWith('-'));
  const found = find(leading);
  if (!found) {
    if (leading.length === 0 || argv.includes('--help') || argv.includes('-h')) {
      io.out(help());
      return leading.length === 0 && !argv.includes('--help') && !argv.includes('-h') ? 2 : 0;
    }
    io.err(`Unknown command: ${leading.join(' ')}\n\n${help()}`);
    return 2;
  }
  const { command } = found;
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options: { ...GLOBAL_OPTIONS, ...command.options }, allowPositionals: true, strict: true });
  } catch (error) {
    io.err(`${(error as Error).message}\n\nUsage: ${command.usage}`);
    return 2;
  }
  if (parsed.values.help) {
    io.out(`${command.summary}\n\nUsage: ${command.usage}`);
    return 0;
  }
  const abort = new AbortController();
  const stop = () => abort.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await command.run({
      io,
      flags: parsed.values,
      args: parsed.positionals.slice(command.name.split(' ').length),
      profileName: (parsed.values.profile as string | undefined) ?? env.HOLDFAST_PROFILE ?? 'default',
      json: Boolean(parsed.values.json),
      env,
      signal: abort.signal,
    });
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n\nUsage: ${command.usage}`);
      return 2;
    }
    io.err(describeError(error));
    return 1;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

process.exitCode = await main(process.argv.slice(2));
