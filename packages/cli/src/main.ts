#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CommanderError, Option, Command as Program } from 'commander';
import { CLI_VERSION, COMMANDS, type Command, describeError, type Flags, UsageError } from './commands.js';
import { type Io, processIo } from './output.js';

// The argument parsing is commander's (ADR 60): options before or after the command words
// (`holdfast --profile x trigger …` and `holdfast trigger … --profile x`), `--version`, a usage
// mistake refused with the command's usage and exit code 2.

function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length + (c.arguments ? c.arguments.length + 1 : 0)));
  return [
    `holdfast ${CLI_VERSION}: the Holdfast command line (Payments API v2 and Workspace API)`,
    '',
    'Usage: holdfast [--profile NAME] [--json] <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${`${c.name}${c.arguments ? ` ${c.arguments}` : ''}`.padEnd(width)}  ${c.summary}`),
    '',
    'Options for every command (before or after the command):',
    '  --profile NAME  the stored profile to use (default: $HOLDFAST_PROFILE or "default")',
    '  --json          machine-readable output on stdout (progress stays on stderr)',
    '  --help, -h      this help, or a command’s usage with the command',
    '  --version, -v   the CLI’s version',
    '',
    'Profiles live in $XDG_CONFIG_HOME/holdfast/config.json (~/.config/holdfast/config.json), mode 0600.',
    'Guide: docs/cli.md',
  ].join('\n');
}

/** The flags of one command under their option names (`forward-to`, not `forwardTo`). */
function flagsOf(command: Program): Flags {
  const values = command.optsWithGlobals() as Record<string, unknown>;
  const flags: Flags = {};
  for (const owner of [command, ...ancestors(command)]) {
    for (const option of owner.options) {
      const name = option.long?.replace(/^--/, '');
      const value = values[option.attributeName()];
      if (name && value !== undefined && flags[name] === undefined) flags[name] = value as Flags[string];
    }
  }
  return flags;
}

function ancestors(command: Program): Program[] {
  const list: Program[] = [];
  for (let parent = command.parent; parent; parent = parent.parent) list.push(parent);
  return list;
}

interface Outcome {
  code: number;
}

function build(io: Io, env: NodeJS.ProcessEnv, signal: AbortSignal, outcome: Outcome): Program {
  const program = new Program('holdfast')
    .version(CLI_VERSION, '-v, --version', 'the CLI’s version')
    .option('--profile <name>', 'the stored profile to use (default: $HOLDFAST_PROFILE or "default")')
    .option('--json', 'machine-readable output on stdout (progress stays on stderr)')
    .helpOption('-h, --help', 'this help')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.replace(/\n$/, '')), writeErr: (s) => io.err(s.replace(/\n$/, '')) })
    .showSuggestionAfterError(true)
    .allowExcessArguments(false);
  program.helpInformation = () => `${overview()}\n`;
  const groups = new Map<string, Program>();
  for (const spec of COMMANDS) {
    const words = spec.name.split(' ');
    let parent = program;
    if (words.length === 2) {
      const group = words[0] as string;
      let found = groups.get(group);
      if (!found) {
        found = program.command(group).description(`${group} commands`);
        found.exitOverride().configureOutput(program.configureOutput());
        groups.set(group, found);
      }
      parent = found;
    }
    const command = parent
      .command(words.at(-1) as string)
      .description(spec.summary)
      .exitOverride()
      .allowExcessArguments(false);
    if (spec.arguments) command.arguments(spec.arguments);
    for (const [name, option] of Object.entries(spec.options)) {
      const flag = option.type === 'boolean' ? `--${name}` : `--${name} <value>`;
      const made = new Option(flag, option.description ?? '');
      if (option.multiple) made.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
      command.addOption(made);
    }
    command.addHelpText('after', `\n${spec.usage}`);
    command.action(async (...received: unknown[]) => {
      const self = received.at(-1) as Program;
      const flags = flagsOf(self);
      outcome.code = await run(spec, {
        io,
        flags,
        args: self.args,
        profileName: (flags.profile as string | undefined) ?? env.HOLDFAST_PROFILE ?? 'default',
        json: Boolean(flags.json),
        env,
        signal,
      });
    });
  }
  return program;
}

async function run(spec: Command, context: Parameters<Command['run']>[0]): Promise<number> {
  try {
    await spec.run(context);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      context.io.err(`${error.message}\n\n${spec.usage}`);
      return 2;
    }
    context.io.err(describeError(error));
    return 1;
  }
}

/** Runs the CLI; resolves with the exit code (0 ok, 1 the API or network refused, 2 a usage mistake). */
export async function main(argv: string[], io: Io = processIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const abort = new AbortController();
  const stop = () => abort.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const outcome: Outcome = { code: 0 };
  try {
    if (argv.length === 0) {
      io.out(overview());
      return 2;
    }
    await build(io, env, abort.signal, outcome).parseAsync(argv, { from: 'user' });
    return outcome.code;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(error.code)) return error.exitCode === 0 ? 0 : 2;
      return 2;
    }
    io.err(describeError(error));
    return 1;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

const invoked = process.argv[1] ? realpathSync(process.argv[1]) : '';
if (invoked === realpathSync(fileURLToPath(import.meta.url))) process.exitCode = await main(process.argv.slice(2));
