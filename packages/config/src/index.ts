export * from './chain.js';
export * from './durations.js';
export * from './env.js';
export * from './fields.js';
export { parsePostgresUrl } from './formats.js';
export * from './production.js';
