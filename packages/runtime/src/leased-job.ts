import { contextFromCarrier, type Logger, SpanKind, type TraceCarrier, withSpan } from '@holdfast/logging';
import { createPollingWorker, type PollingWorker } from './worker.js';

/** What the job layer reads of a claimed row; the job's own row type has more. */
export interface LeasedRow {
  /** The row's attempts as its claim returns them: compared with the job's `attempts`, handed to `backoff`. */
  attempts: number;
}

/**
 * One background job over a queue table (docs/engineering.md, "Background work"; ADR 65): what a
 * job is, stated once where the job is defined, as a worker catalog states each job's schema,
 * lease, attempts and back-off. The layer claims, runs each row (in the trace of what queued it),
 * and settles each failure the one way: given up when retrying cannot fix it (`permanent`) or the
 * attempts are spent, else retried after `backoff`.
 */
export interface LeasedJob<Row extends LeasedRow> {
  /** Names the worker in logs (`component`). */
  name: string;
  /**
   * The drizzle table the job's rows are (its schema): the architecture test pairs every table with
   * a lease column with the one job that claims it.
   */
  table: object;
  /**
   * How a claim holds its rows: `{ seconds }`, a lease (a claimer that died is taken over when it
   * runs out; the rows are worked outside the claim's transaction), or `'transaction'` (the claim's
   * transaction keeps them locked while they are worked: every step runs in it).
   */
  lease: { seconds: number } | 'transaction';
  /** Rows claimed per pass. */
  batch: number;
  /** A row whose claim returns this many attempts or more is given up when it fails again; `Infinity`: never for its count. */
  attempts: number;
  /** The wait before the next attempt after a failure, from the row's attempts. */
  backoff: (attempts: number) => number;
  /** A failure retrying cannot fix (a refusal, a broken payload): the row is given up at once. */
  permanent?: (error: unknown) => boolean;
  /** What the row records of a failure. */
  failure: (error: unknown) => string;
  /**
   * `serial` (the default): a pass works its rows one after another, and a failure to record a
   * failure fails the pass (the worker backs off; the rows come back with their lease).
   * `parallel`: all at once, each on its own (such a failure is logged; the row comes back with its lease).
   */
  concurrency?: 'serial' | 'parallel';
  /** What a log line says of a row (its ids), and the span each run is in (under the trace that queued it). */
  describe: (row: Row) => Record<string, unknown>;
  span?: (row: Row) => { name: string; parent: TraceCarrier | null | undefined; attributes: Record<string, string | number> };
  /** The log lines of a retry (warn) and a row given up (error): what operators search for. */
  messages: { retrying: string; gaveUp: string };
}

/** States a job once (checked: a batch, a lease, attempts); the object is what workers run. */
export function defineLeasedJob<Row extends LeasedRow>(job: LeasedJob<Row>): Readonly<LeasedJob<Row>> {
  if (!(job.batch >= 1)) throw new Error(`${job.name}: batch must be at least 1`);
  if (job.lease !== 'transaction' && !(job.lease.seconds > 0)) throw new Error(`${job.name}: a lease lasts some seconds`);
  if (!(job.attempts >= 1)) throw new Error(`${job.name}: attempts must be at least 1`);
  return Object.freeze({ ...job });
}

/** What a job does with one of its rows; each step takes the row as claimed. */
export interface LeasedJobSteps<Row extends LeasedRow> {
  /** The work; a throw is the row's failure. */
  run: (row: Row) => Promise<void>;
  retry: (row: Row, delayMs: number, failure: string) => Promise<unknown>;
  giveUp: (row: Row, failure: string) => Promise<unknown>;
}

/** Works the rows one claim returned, by the job's rules. */
export async function workClaimed<Row extends LeasedRow>(
  job: Readonly<LeasedJob<Row>>,
  rows: Row[],
  steps: LeasedJobSteps<Row>,
  log: Logger,
): Promise<void> {
  const one = async (row: Row): Promise<void> => {
    try {
      const span = job.span?.(row);
      if (span)
        await withSpan(span.name, { kind: SpanKind.INTERNAL, parent: contextFromCarrier(span.parent), attributes: span.attributes }, () =>
          steps.run(row),
        );
      else await steps.run(row);
    } catch (error) {
      const failure = job.failure(error);
      if (job.permanent?.(error) || row.attempts >= job.attempts) {
        log.error({ err: error, ...job.describe(row) }, job.messages.gaveUp);
        await steps.giveUp(row, failure);
      } else {
        const delayMs = job.backoff(row.attempts);
        log.warn({ err: error, ...job.describe(row), retryInMs: delayMs }, job.messages.retrying);
        await steps.retry(row, delayMs, failure);
      }
    }
  };
  if (job.concurrency !== 'parallel') {
    for (const row of rows) await one(row);
    return;
  }
  await Promise.all(
    rows.map((row) => one(row).catch((error) => log.error({ err: error, ...job.describe(row) }, `${job.name}: a failure not recorded`))),
  );
}

/**
 * The worker of a leased job: each pass claims up to `batch` due rows for the job's lease and works
 * them; the next pass starts at once while a pass claimed any, else after `intervalMs`. `runOnce`
 * is handed back for tests and operators to run a pass.
 */
export function createLeasedJobWorker<Row extends LeasedRow>(
  job: Readonly<LeasedJob<Row>>,
  where: { logger: Logger; intervalMs: number },
  steps: LeasedJobSteps<Row> & {
    /** Due rows, at most `limit`, claimed for `leaseSeconds` (in a transaction of their own). */
    claim: (limit: number, leaseSeconds: number) => Promise<Row[]>;
  },
): PollingWorker & { runOnce: () => Promise<number> } {
  if (job.lease === 'transaction') throw new Error(`${job.name}: a job held by its transaction claims inside it (workClaimed)`);
  const { seconds } = job.lease;
  const log = where.logger.child({ component: job.name });
  const runOnce = async (): Promise<number> => {
    const rows = await steps.claim(job.batch, seconds);
    await workClaimed(job, rows, steps, log);
    return rows.length;
  };
  const worker = createPollingWorker({
    name: job.name,
    logger: where.logger,
    intervalMs: where.intervalMs,
    pass: async () => (await runOnce()) > 0,
  });
  return { ...worker, runOnce };
}
