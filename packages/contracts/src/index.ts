import './formats.js';

export * from './chain.js';
export * from './commands.js';
export * from './domain.js';
export * from './envelope.js';
export * from './errors.js';
export * from './events.js';
export * from './forwarding.js';
export * from './ids.js';
export * from './pagination.js';
export * from './payments-access.js';
export * from './payments-v2.js';
export * from './subjects.js';
export * from './wallets.js';
export * from './webhooks.js';
export * from './workspace-api/index.js';
