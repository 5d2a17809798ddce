export { type DispatcherConfig, dispatcherConfigFrom } from './config.js';
export { createDispatcherService } from './service.js';
