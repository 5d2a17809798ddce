// The public face of the subscriptions module: what other modules use of it. Another module imports
// from here, never from its files (the architecture test fails on that).

export { serveOwnedCommand } from './owned-commands.js';
export type { SubscriptionRow } from './repository.js';
export { secretContext } from './service.js';
export { type Circuit, nextCircuit } from './state-machine.js';
