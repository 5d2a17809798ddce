// Request/reply between processes (core NATS): defineCommand and the commands of the dispatcher and the
// indexer, with the routes that forward to them. Payments' commands for workspace are with their surface.
export * from './define.js';
export * from './escrow-registry.js';
export * from './forwarding.js';
export * from './webhooks.js';
