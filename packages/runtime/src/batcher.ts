/**
 * The one batcher of Holdfast (ADR 65): members handed in one by one go to `run` together, at most
 * `maxBatch` at a time, so a burst costs one statement (one round trip, one commit) per batch
 * instead of one per member. `run` answers each member of its batch, its failures too (the batcher
 * knows nothing of answers): a `run` that throws is a bug. When a batch goes is `gather`:
 * - `'while-busy'`: at once when no batch is in flight; members handed in meanwhile wait for it to
 *   finish and go together in the next (one batch in flight at a time: the dispatcher's intake);
 * - `{ waitMs }`: `waitMs` after the batch's first member (0: at the end of the event-loop turn),
 *   whatever is in flight (group commit of creations and key lookups, ADR 39).
 */
export function createBatcher<M>(options: {
  maxBatch: number;
  gather: 'while-busy' | { waitMs: number };
  run: (batch: M[]) => Promise<void> | void;
}): (member: M) => void {
  const { maxBatch, gather, run } = options;
  let waiting: M[] = [];
  const take = (): M[] => {
    const batch = waiting.length > maxBatch ? waiting.splice(0, maxBatch) : waiting;
    if (batch === waiting) waiting = [];
    return batch;
  };

  if (gather === 'while-busy') {
    let busy = false;
    const drain = async () => {
      busy = true;
      try {
        while (waiting.length > 0) await run(take());
      } finally {
        busy = false;
      }
    };
    return (member) => {
      waiting.push(member);
      if (!busy) void drain();
    };
  }

  const { waitMs } = gather;
  let scheduled = false;
  const schedule = () => {
    scheduled = true;
    if (waitMs > 0) setTimeout(flush, waitMs);
    else setImmediate(flush);
  };
  function flush(): void {
    scheduled = false;
    const batch = take();
    if (waiting.length > 0) schedule();
    void run(batch);
  }
  return (member) => {
    waiting.push(member);
    if (!scheduled) schedule();
  };
}
