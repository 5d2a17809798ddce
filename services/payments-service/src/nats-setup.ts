import { runNatsSetupOf } from '@holdfast/runtime';
import { loadNatsSetupConfig } from './config.js';

// The NATS setup (streams and durable consumers), run before the processes like the migrations.
await runNatsSetupOf({ serviceName: 'nats-setup', loadConfig: loadNatsSetupConfig });
