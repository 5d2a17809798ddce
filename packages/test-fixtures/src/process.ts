import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

export interface ExitedProcess {
  code: number;
  stdout: string;
  stderrLines: string[];
}

/** Runs a built `main.js` with only the given environment and waits for it to exit (bad config); generous: a loaded CI machine takes seconds to load a service. */
export async function runMainExpectingExit(mainPath: string, env: Record<string, string>, timeoutMs = 20_000): Promise<ExitedProcess> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [mainPath], {
      env: { PATH: process.env.PATH ?? '', ...env },
      timeout: timeoutMs,
    });
    return { code: 0, stdout, stderrLines: stderr.trim().split('\n').filter(Boolean) };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderrLines: e.stderr.trim().split('\n').filter(Boolean) };
  }
}

/** A configuration a service's `main.js` refuses, as one row of `itRefusesToStart`. */
export interface StartUpRefusal {
  /** What is refused, as the test's name says it ("refuses <refuses>"). */
  refuses: string;
  env: Record<string, string>;
  /** The problems named on stderr, one line each, without the "<service>: configuration error: " every line starts with. */
  problems: string[];
}

/**
 * One test per refusal: the service's built `main.js`, run with only `env`, exits 1 having printed
 * nothing on stdout and exactly these problems on stderr. Every process first refuses to start
 * without APP_ENV (no development fallback unless local is asked for), so that case is always one.
 */
export function itRefusesToStart(service: string, mainPath: string, refusals: StartUpRefusal[]): void {
  const withoutAppEnv: StartUpRefusal = {
    refuses: 'to start without APP_ENV: no development fallback unless local is asked for',
    env: {},
    problems: ['APP_ENV: must be set to local, staging or production; a process never assumes one (./scripts/start sets local) (missing)'],
  };
  it.each([withoutAppEnv, ...refusals])('refuses $refuses', async ({ env, problems }) => {
    expect(await runMainExpectingExit(mainPath, env)).toEqual({
      code: 1,
      stdout: '',
      stderrLines: problems.map((problem) => `${service}: configuration error: ${problem}`),
    });
  });
}
