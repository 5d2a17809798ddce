import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Anvil, startAnvil } from '@holdfast/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CONTRACTS } from '../src/index.js';

// The command docker-compose.yml runs before the services: it must leave the contracts where the
// compose file says they are.
const cli = fileURLToPath(new URL('../dist/cli/deploy-local.js', import.meta.url));
const run = (rpcUrl: string) => promisify(execFile)(process.execPath, [cli, rpcUrl, 'base-sepolia']);
let anvil: Anvil;

beforeAll(async () => {
  anvil = await startAnvil();
});
afterAll(() => anvil?.stop());

describe('deploy-local', () => {
  it('deploys on a fresh chain at the fixed local addresses, and finds them the second time', async () => {
    const first = await run(anvil.rpcUrl);
    expect(first.stdout.split('\n')).toEqual([
      'deployed on chain 84532',
      `ESCROW_CONTRACTS=base-sepolia=${LOCAL_CONTRACTS.escrow.address}@2`,
      `TOKEN_CONTRACTS=base-sepolia:MockUSDC=${LOCAL_CONTRACTS.mockUsdc.address}`,
      '',
    ]);
    const second = await run(anvil.rpcUrl);
    expect(second.stdout.split('\n')[0]).toBe('found on chain 84532');
  });
});
