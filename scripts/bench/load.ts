// What the request benchmarks share: N closed loops of undici requests, percentiles, the CPU time a
// child process spent (to compare CPU per request before and after a change on a busy machine), and
// the ratio verdict each script prints.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';

export interface LoadResult {
  requests: number;
  ok: number;
  errors: number;
  seconds: number;
  latencies: number[];
  firstError?: string;
}

export interface LoadRequest {
  method: 'GET' | 'POST';
  body?: string;
  headers: Record<string, string>;
}

/**
 * `inFlight` closed loops: each sends the next request as soon as its previous answer is read, until
 * `total` were sent. A request counts as ok when `ok(status, headers)` holds; latency is from the
 * start of the request to the end of its answer's body.
 */
export async function closedLoops(
  url: string,
  total: number,
  inFlight: number,
  next: () => LoadRequest,
  ok: (status: number, headers: Record<string, string | string[] | undefined>) => boolean,
): Promise<LoadResult> {
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: inFlight });
  const result: LoadResult = { requests: 0, ok: 0, errors: 0, seconds: 0, latencies: [] };
  let sent = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (sent < total) {
        sent += 1;
        const { method, body, headers } = next();
        const t0 = performance.now();
        try {
          const res = await request(url, { method, dispatcher: agent, headers, body });
          const text = await res.body.text();
          result.latencies.push(performance.now() - t0);
          if (ok(res.statusCode, res.headers)) result.ok += 1;
          else {
            result.errors += 1;
            result.firstError ??= `${res.statusCode} ${text.slice(0, 300)}`;
          }
        } catch (error) {
          result.errors += 1;
          result.firstError ??= String(error);
        }
        result.requests += 1;
      }
    }),
  );
  result.seconds = (performance.now() - started) / 1000;
  await agent.close();
  return result;
}

export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

const CLOCK_TICKS_PER_SECOND = 100;

/**
 * User + system CPU milliseconds a process has used so far (Linux `/proc/<pid>/stat`, 10 ms ticks);
 * NaN where that file is not there. The difference over a run, per request, is the process's CPU
 * per request: what a change saves, whatever else the machine is busy with.
 */
export function processCpuMs(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** `PASS` or `MISS` for a target `ratio >= at least`, with the numbers. */
export function verdict(target: string, ratio: number, atLeast: number): string {
  return `${ratio >= atLeast ? 'PASS' : 'MISS'} ${target}: ${ratio.toFixed(2)}x (target >= ${atLeast}x)`;
}
