import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** What `holdfast login` stores for one profile. */
export interface Profile {
  /** Payments API host and its OAuth client (client credentials). */
  apiUrl?: string;
  clientId?: string;
  clientSecret?: string;
  /** Workspace API host and a user's e-mail and password. */
  workspaceUrl?: string;
  email?: string;
  password?: string;
  /** The secret `holdfast listen` signs forwarded events with (made on first use, kept stable). */
  listenSecret?: string;
}

interface ConfigFile {
  profiles: Record<string, Profile>;
}

/** `$XDG_CONFIG_HOME/holdfast/config.json`, else `~/.config/holdfast/config.json`. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME?.startsWith('/') ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'holdfast', 'config.json');
}

function read(path: string): ConfigFile {
  if (!existsSync(path)) return { profiles: {} };
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<ConfigFile>;
  return { profiles: parsed.profiles ?? {} };
}

export function loadProfile(name: string, path = configPath()): Profile | undefined {
  return read(path).profiles[name];
}

/**
 * Merges `changes` into profile `name` and writes the file readable by its owner only (0600, in a
 * 0700 directory): it holds client secrets and passwords. Written to a temporary file first, so a
 * crash never leaves half a file.
 */
export function saveProfile(name: string, changes: Profile, path = configPath()): Profile {
  const config = read(path);
  const profile = { ...config.profiles[name], ...changes };
  config.profiles[name] = profile;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
  return profile;
}
