export { createTestDatabase, databaseUrl, type TestDatabase } from '@holdfast/db/testing';
export { createTestBus, type TestBus } from '@holdfast/messaging/testing';
export * from './anvil.js';
export * from './file-fixture.js';
export * from './logger.js';
export * from './ports.js';
export * from './process.js';
export * from './processes.js';
export * from './service.js';
