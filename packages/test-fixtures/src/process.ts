import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

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
