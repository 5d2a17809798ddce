export * from './chain.js';
export * from './durations.js';
export * from './env.js';
export * from './fields.js';
export * from './production.js';
