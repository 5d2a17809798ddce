export { type IndexerConfig, indexerConfigFrom } from './config.js';
export { createIndexerService } from './service.js';
