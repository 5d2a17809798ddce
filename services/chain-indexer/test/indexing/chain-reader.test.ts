import { holdfastEscrowAbi } from '@holdfast/escrow';
import { type Anvil, startAnvil } from '@holdfast/test-fixtures';
import { toEventSelector } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainReader, ESCROW_EVENT_TOPICS } from '../../src/modules/indexing/chain-reader.js';

let anvil: Anvil;

beforeAll(async () => {
  anvil = await startAnvil();
  await anvil.rpc('anvil_mine', ['0x3']);
});

afterAll(async () => {
  await anvil?.stop();
});

describe('the chain reader', () => {
  it.each(['http', 'ws'])('reads heads, blocks and (no) logs over %s, and closes', async (scheme) => {
    const reader = createChainReader({ rpcUrl: anvil.rpcUrl.replace('http', scheme), chainId: anvil.chainId, name: 'base-sepolia' });
    try {
      expect(await reader.chainId()).toBe(84532);
      const latest = await reader.latest();
      expect(latest.number).toBe(3n);
      const blocks = await reader.blocks([2n, 3n, 4n]);
      expect(blocks.get(3n)).toEqual(latest);
      expect(blocks.get(2n)?.hash).toBe(latest.parentHash);
      expect(blocks.get(4n)).toBeUndefined();
      expect(await reader.escrowLogs(['0x0000000000000000000000000000000000000001'], 0n, 3n)).toEqual([]);
    } finally {
      await reader.close();
    }
  });
});

describe('the escrow logs read', () => {
  const events = holdfastEscrowAbi.filter((item) => item.type === 'event');
  const topicOf = (name: string) => toEventSelector(events.find((item) => item.name === name)!);

  it("are the escrow lifecycle's events, not pay's TransferForwarded (no escrow: never a CHAIN event, never an undecodable log)", () => {
    expect(ESCROW_EVENT_TOPICS).toContain(topicOf('EscrowCreated'));
    expect(ESCROW_EVENT_TOPICS).toContain(topicOf('EscrowFrozen'));
    expect(ESCROW_EVENT_TOPICS).not.toContain(topicOf('TransferForwarded'));
    // EIP-5267's EIP712DomainChanged is declared (eip712Domain) and never emitted.
    expect(ESCROW_EVENT_TOPICS).not.toContain(topicOf('EIP712DomainChanged'));
    expect(ESCROW_EVENT_TOPICS).toHaveLength(events.length - 2);
  });
});
