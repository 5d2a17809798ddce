import { AppError } from '@holdfast/contracts';
import { createLogger } from '@holdfast/logging';
import { describe, expect, it } from 'vitest';
import { createLeasedJobWorker, defineLeasedJob, workClaimed } from '../src/leased-job.js';

const logger = createLogger({ service: 'leased-job-test', level: 'silent' });

interface Row {
  id: string;
  attempts: number;
}

const job = (overrides: Partial<Parameters<typeof defineLeasedJob<Row>>[0]> = {}) =>
  defineLeasedJob<Row>({
    name: 'test-job',
    table: {},
    lease: { seconds: 30 },
    batch: 2,
    attempts: 3,
    backoff: (attempts) => 1000 * attempts,
    permanent: (error) => error instanceof AppError && error.statusCode < 500,
    failure: (error) => (error instanceof Error ? error.message : String(error)),
    describe: (row) => ({ rowId: row.id }),
    messages: { retrying: 'retrying', gaveUp: 'given up' },
    ...overrides,
  });

/** The steps of a job that record what the layer asked of them. */
function recorder(fail: (row: Row) => unknown) {
  const done: string[] = [];
  const retried: [string, number, string][] = [];
  const givenUp: [string, string][] = [];
  return {
    done,
    retried,
    givenUp,
    steps: {
      run: async (row: Row) => {
        const error = fail(row);
        if (error) throw error;
        done.push(row.id);
      },
      retry: async (row: Row, delayMs: number, failure: string) => void retried.push([row.id, delayMs, failure]),
      giveUp: async (row: Row, failure: string) => void givenUp.push([row.id, failure]),
    },
  };
}

describe('leased job layer', () => {
  it('retries a failure after the back-off of its attempts and gives it up once they are spent', async () => {
    const r = recorder((row) => (row.id === 'ok' ? undefined : new Error(`boom ${row.id}`)));
    await workClaimed(
      job(),
      [
        { id: 'ok', attempts: 1 },
        { id: 'young', attempts: 2 },
        { id: 'spent', attempts: 3 },
      ],
      r.steps,
      logger,
    );
    expect(r.done).toEqual(['ok']);
    expect(r.retried).toEqual([['young', 2000, 'boom young']]);
    expect(r.givenUp).toEqual([['spent', 'boom spent']]);
  });

  it('gives a permanent failure up at its first attempt', async () => {
    const r = recorder(() => new AppError('CONFLICT', 'refused'));
    await workClaimed(job(), [{ id: 'a', attempts: 1 }], r.steps, logger);
    expect(r.retried).toEqual([]);
    expect(r.givenUp).toEqual([['a', 'refused']]);
  });

  it('serial: a failure to record a failure fails the pass; parallel: it is logged and the others go on', async () => {
    const failing = {
      run: async (row: Row) => {
        if (row.id === 'a') throw new Error('boom');
      },
      retry: async () => {
        throw new Error('database gone');
      },
      giveUp: async () => {},
    };
    const rows = [
      { id: 'a', attempts: 1 },
      { id: 'b', attempts: 1 },
    ];
    await expect(workClaimed(job(), rows, failing, logger)).rejects.toThrow('database gone');
    await expect(workClaimed(job({ concurrency: 'parallel' }), rows, failing, logger)).resolves.toBeUndefined();
  });

  it('the worker claims the batch for the lease the job states, and runOnce counts what it claimed', async () => {
    const claims: [number, number][] = [];
    const r = recorder(() => undefined);
    const worker = createLeasedJobWorker(
      job(),
      { logger, intervalMs: 60_000 },
      {
        claim: async (limit, leaseSeconds) => {
          claims.push([limit, leaseSeconds]);
          return [{ id: 'x', attempts: 1 }];
        },
        ...r.steps,
      },
    );
    expect(await worker.runOnce()).toBe(1);
    expect(claims).toEqual([[2, 30]]);
    expect(r.done).toEqual(['x']);
  });

  it('refuses a job without a batch, a lease or attempts', () => {
    expect(() => job({ batch: 0 })).toThrow('batch');
    expect(() => job({ lease: { seconds: 0 } })).toThrow('lease');
    expect(() => job({ attempts: 0 })).toThrow('attempts');
  });
});
