// What travels on JetStream: domain events (EVENTS), chain events (CHAIN), and every subject, stream
// and consumer name.
export * from './chain.js';
export * from './domain-events.js';
export * from './subjects.js';
