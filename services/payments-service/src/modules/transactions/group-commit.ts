import { AsyncResource } from 'node:async_hooks';
import type { Sql } from '@holdfast/db';
import { isDependencyOutage } from '@holdfast/http-kit';
import { activeTraceCarrier, type TraceCarrier } from '@holdfast/logging';
import { createBatcher } from '@holdfast/runtime';
import type { AnsweredRow, SingleCreation, SingleCreationOutcome, TransactionsRepository } from './repository.js';

/** An outcome the service answers from (a lost race is run again before it gets here). */
export type SettledCreation = Exclude<SingleCreationOutcome, { outcome: 'conflict' }>;

export interface GroupCommitOptions {
  sql: Sql;
  repository: TransactionsRepository;
  /** The per-sender window, the same for every creation (the service's sender limits). */
  senderWindow: { seconds: number; limit: number } | null;
  /** The most creations one statement carries; 1 turns group commit off. */
  maxBatch: number;
  /** How long the first creation of a group waits for others (0: only those of the same event-loop turn). */
  waitMs: number;
  /** A creation alone: the creation statement, run again while it loses races (the service's `createSingle`). */
  createAlone: (creation: SingleCreation) => Promise<SettledCreation>;
}

/** One request's part of a group: its own work alone (in its own async context), and its answer. */
interface Member<R> {
  /** The work alone, in its own request's async context (its trace, its logger). */
  alone: () => Promise<R>;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/** Hands the member its own work's answer, done alone. */
const runAlone = <R>(m: Member<R>) => {
  m.alone().then(m.resolve, m.reject);
};

/**
 * The one grouping of this module, on the runtime's batcher: members that arrive in the same
 * event-loop turn (or within `waitMs` of the first) are handed to `runGroup` together, `maxBatch`
 * at most; a member alone in its group runs alone. `runGroup` answers every member of its group.
 */
const createGrouping = <R, M extends Member<R>>(maxBatch: number, waitMs: number, runGroup: (group: M[]) => void) =>
  createBatcher<M>({ maxBatch, gather: { waitMs }, run: (group) => (group.length === 1 ? runAlone(group[0]!) : runGroup(group)) });

interface WaitingCreation extends Member<SettledCreation> {
  creation: SingleCreation;
  traceContext: TraceCarrier | null;
}

/**
 * Group commit of single creations (ADR 39): the creations that reach the database in the same
 * moment go as one statement (`repository.createMany`), one round trip and one commit (one WAL
 * flush) for all. Each keeps its own answer: an item that lost a race to another item of the
 * group (same sender or key) or to another statement is run again alone, and if PostgreSQL
 * refuses the statement (it then wrote nothing) every item is run alone, so an error is only ever
 * its own request's. A lost connection is every item's error (503), as it would be alone: the
 * statement may have committed. A creation alone in its group runs the single statement, as
 * without grouping.
 */
export function createGroupCommit(options: GroupCommitOptions) {
  const { sql, repository, senderWindow, maxBatch, waitMs, createAlone } = options;

  async function runGroup(group: WaitingCreation[]): Promise<void> {
    let outcomes: SingleCreationOutcome[];
    try {
      outcomes = await repository.createMany(
        sql,
        group.map((w) => ({ ...w.creation, traceContext: w.traceContext })),
        { senderWindow },
      );
    } catch (error) {
      // The connection failed (or PostgreSQL is going down): the statement may have committed
      // before its answer was lost, and running a creation without an idempotency key again could
      // make it twice. Each request gets the error, as a creation alone would (503: retry with the
      // same key).
      if (isDependencyOutage(error)) {
        for (const w of group) w.reject(error);
        return;
      }
      // PostgreSQL refused the statement, so it wrote nothing: each creation alone, with its own
      // answer (its own error, if any).
      for (const w of group) runAlone(w);
      return;
    }
    group.forEach((w, i) => {
      const outcome = outcomes[i]!;
      if (outcome.outcome === 'conflict') runAlone(w);
      else w.resolve(outcome);
    });
  }
  const join = createGrouping<SettledCreation, WaitingCreation>(maxBatch, waitMs, (group) => void runGroup(group));

  return {
    /** The creation's outcome, made alone or with the others waiting now. */
    create(creation: SingleCreation): Promise<SettledCreation> {
      if (maxBatch <= 1) return createAlone(creation);
      return new Promise<SettledCreation>((resolve, reject) =>
        join({
          creation,
          traceContext: activeTraceCarrier(),
          alone: AsyncResource.bind(() => createAlone(creation)),
          resolve,
          reject,
        }),
      );
    },
  };
}
export type GroupCommit = ReturnType<typeof createGroupCommit>;

interface WaitingLookup extends Member<AnsweredRow | null> {
  platformId: string;
  key: string;
}

/**
 * The idempotency keys' lookups of the same event-loop turn (or of `waitMs`) as one statement
 * (`repository.findByIdempotencyKeys`), one round trip for all (ADR 39); one alone, or all of a
 * failed group, are looked up alone, each with its own answer (a read: running it again is safe).
 */
export function createKeyLookups(options: { sql: Sql; repository: TransactionsRepository; maxBatch: number; waitMs: number }) {
  const { sql, repository, maxBatch, waitMs } = options;
  const join = createGrouping<AnsweredRow | null, WaitingLookup>(maxBatch, waitMs, (group) => {
    repository.findByIdempotencyKeys(sql, group).then(
      (found) => {
        group.forEach((w, i) => {
          w.resolve(found[i]!);
        });
      },
      () => {
        for (const w of group) runAlone(w);
      },
    );
  });

  return {
    /** The first result of the platform's idempotency key, or null. */
    find(platformId: string, key: string): Promise<AnsweredRow | null> {
      if (maxBatch <= 1) return repository.findByIdempotencyKey(sql, platformId, key);
      return new Promise<AnsweredRow | null>((resolve, reject) =>
        join({
          platformId,
          key,
          alone: AsyncResource.bind(() => repository.findByIdempotencyKey(sql, platformId, key)),
          resolve,
          reject,
        }),
      );
    },
  };
}
