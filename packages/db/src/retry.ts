/** SQLSTATEs after which PostgreSQL rolled the whole transaction back and running it again is safe. */
const TRANSIENT_CONFLICTS = new Set(['40P01', '40001']); // deadlock_detected, serialization_failure

/** Whether `error` (or its cause) is a deadlock or a serialization failure. */
export function isTransientConflict(error: unknown): boolean {
  for (let e: unknown = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    if (TRANSIENT_CONFLICTS.has((e as { code?: string }).code ?? '')) return true;
  }
  return false;
}

/**
 * Runs `work` (one database transaction, e.g. `() => sql.begin(...)`) again when PostgreSQL aborted it
 * for a deadlock or a serialization failure: nothing of it was kept, so a retry is the same request.
 * A request never answers 500 for a conflict with another one. Locks are still taken in one order
 * (docs/engineering.md): this is for the conflicts that remain.
 */
export async function retryOnConflict<T>(work: () => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !isTransientConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 * 2 ** attempt * Math.random()));
    }
  }
}
