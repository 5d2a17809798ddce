import { runProcess } from '@holdfast/runtime';
import { loadIndexerConfig, SERVICE_NAME } from './config.js';
import { createIndexerService } from './service.js';

await runProcess({ serviceName: SERVICE_NAME, loadConfig: loadIndexerConfig, port: (c) => c.INDEXER_PORT, create: createIndexerService });
