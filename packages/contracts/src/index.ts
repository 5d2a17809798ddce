import './formats.js';

export * from './commands.js';
export * from './domain.js';
export * from './envelope.js';
export * from './errors.js';
export * from './events.js';
export * from './ids.js';
export * from './pagination.js';
export * from './subjects.js';
export * from './wallets.js';
