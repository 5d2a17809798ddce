import { describe, expect, it } from 'vitest';
import { ANVIL_ACCOUNTS, startAnvil } from '../src/index.js';

describe('startAnvil', () => {
  it('runs a private chain with base-sepolia chain id and funded dev accounts, and stops it', async () => {
    const anvil = await startAnvil();
    try {
      expect(Number.parseInt(await anvil.rpc<string>('eth_chainId'), 16)).toBe(84532);
      const balance = BigInt(await anvil.rpc<string>('eth_getBalance', [ANVIL_ACCOUNTS[0].address, 'latest']));
      expect(balance).toBeGreaterThan(0n);
    } finally {
      await anvil.stop();
    }
    await expect(anvil.rpc('eth_chainId')).rejects.toThrow();
  });
});
