import { findBinary, installDebianPackage } from './servers.ts';

/**
 * The ShellCheck that the Dockerfile linter (dockerlinter, ADR 57) runs on each RUN instruction:
 * HOLDFAST_SHELLCHECK when set, else `shellcheck` on PATH, else Debian's package installed here.
 */
export function ensureShellcheck(env: NodeJS.ProcessEnv): string {
  if (env.HOLDFAST_SHELLCHECK) return env.HOLDFAST_SHELLCHECK;
  return (
    findBinary('shellcheck') ??
    installDebianPackage('Dockerfile lint', 'shellcheck', 'shellcheck', 'set HOLDFAST_SHELLCHECK to a shellcheck binary')
  );
}
