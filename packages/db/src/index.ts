export * from './advisory-lock.js';
export * from './columns.js';
export * from './database.js';
export * from './migrate.js';
export * from './outbox.js';
export * from './reencrypt.js';
export * from './retry.js';
export * from './time.js';
