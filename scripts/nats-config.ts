// Writes infra/nats/authorization.conf from the grants in packages/messaging/src/permissions.ts
// (run after changing them: `node scripts/nats-config.ts`; a test fails while the two differ).
import { writeFileSync } from 'node:fs';
import { natsAuthorizationFile } from '@holdfast/messaging';

const target = new URL('../infra/nats/authorization.conf', import.meta.url);
writeFileSync(target, natsAuthorizationFile());
process.stdout.write(`wrote ${target.pathname}\n`);
