export * from './bus.js';
export * from './commands.js';
export * from './consumer.js';
export * from './errors.js';
export * from './publish.js';
export * from './remote-task-policy.js';
export * from './streams.js';
export * from './validate.js';
