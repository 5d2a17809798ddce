/**
 * Assembles a Holdfast process: the foundation (database, NATS, HTTP app), its start (`runProcess`
 * and the one-shot commands), the one background-work primitive and the outbox relay built on it.
 */
export * from './batcher.js';
export * from './foundation.js';
export * from './leased-job.js';
export * from './outbox-relay.js';
export * from './process.js';
export * from './rate-limits.js';
export * from './remote-tasks.js';
export * from './row-waiter.js';
export * from './startup-heap.js';
export * from './tracing.js';
export * from './worker.js';
