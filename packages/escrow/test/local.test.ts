import { type Anvil, startAnvil } from '@holdfast/test-fixtures';
import { createPublicClient, createWalletClient, getContractAddress, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ensureLocalContracts,
  escrowContractsEntry,
  evmChain,
  holdfastEscrowDeployedBytecode,
  isCodeOf,
  type LocalContracts,
  localDeployerAccount,
  mockUsdcDeployedBytecode,
  tokenContractsEntry,
} from '../src/index.js';

let anvil: Anvil;
let clients: Parameters<typeof ensureLocalContracts>[0];

beforeAll(async () => {
  anvil = await startAnvil();
  const chain = evmChain({ id: anvil.chainId, name: 'anvil', rpcUrl: anvil.rpcUrl });
  const transport = http(anvil.rpcUrl);
  clients = {
    publicClient: createPublicClient({ chain, transport, cacheTime: 0, pollingInterval: 50 }),
    walletClient: createWalletClient({ account: localDeployerAccount(), chain, transport, pollingInterval: 50 }),
  };
});

afterAll(async () => {
  await anvil?.stop();
});

describe('ensureLocalContracts', () => {
  let first: LocalContracts;

  it('deploys MockUSDC then the escrow from anvil dev account #9, at the same addresses on every fresh chain', async () => {
    const deployer = localDeployerAccount().address;
    expect(deployer).toBe('0xa0Ee7A142d267C1f36714E4a8F75612F20a79720');
    const result = await ensureLocalContracts(clients);
    expect(result.deployed).toBe(true);
    first = result.contracts;
    expect(first).toMatchObject({
      chainId: 84532,
      deployer,
      mockUsdc: { address: getContractAddress({ from: deployer, nonce: 0n }), blockNumber: '1' },
      escrow: { address: getContractAddress({ from: deployer, nonce: 1n }), blockNumber: '2' },
    });
    // Documented in docs/chain.md: the local addresses on every fresh anvil.
    expect([first.mockUsdc.address, first.escrow.address]).toEqual([
      '0x700b6A60ce7EaaEA56F065753d8dcB9653dbAD35',
      '0xA15BB66138824a1c7167f5E85b957d04Dd34E468',
    ]);
    expect(isCodeOf(await clients.publicClient.getCode({ address: first.escrow.address }), holdfastEscrowDeployedBytecode)).toBe(true);
  });

  it('reuses recorded contracts whose code the chain holds, without a transaction', async () => {
    const before = await clients.publicClient.getBlockNumber();
    const again = await ensureLocalContracts({ ...clients, recorded: first });
    expect(again).toEqual({ contracts: first, deployed: false });
    expect(await clients.publicClient.getBlockNumber()).toBe(before);
  });

  it('deploys anew when the record names another chain, an address without code, or other code', async () => {
    for (const recorded of [
      { ...first, chainId: 1 },
      { ...first, escrow: { ...first.escrow, address: '0x000000000000000000000000000000000000dEaD' as const } },
      { ...first, escrow: { ...first.escrow, address: first.mockUsdc.address } },
    ]) {
      const result = await ensureLocalContracts({ ...clients, recorded });
      expect(result.deployed).toBe(true);
      expect(result.contracts.escrow.address).not.toBe(first.escrow.address);
    }
  });

  it('formats the configuration entries', () => {
    expect(escrowContractsEntry('base-sepolia', first.escrow)).toBe(`base-sepolia=${first.escrow.address}@2`);
    expect(tokenContractsEntry('base-sepolia', 'MockUSDC', first.mockUsdc)).toBe(`base-sepolia:MockUSDC=${first.mockUsdc.address}`);
  });
});

describe('isCodeOf', () => {
  it('accepts the runtime code with immutables filled in and refuses any other code', () => {
    expect(isCodeOf(mockUsdcDeployedBytecode, mockUsdcDeployedBytecode)).toBe(true);
    expect(isCodeOf(undefined, mockUsdcDeployedBytecode)).toBe(false);
    expect(isCodeOf('0x', mockUsdcDeployedBytecode)).toBe(false);
    expect(isCodeOf(mockUsdcDeployedBytecode, holdfastEscrowDeployedBytecode)).toBe(false);
    const changed: `0x${string}` = `0x${mockUsdcDeployedBytecode.slice(2, -2)}${mockUsdcDeployedBytecode.endsWith('33') ? '34' : '33'}`;
    expect(isCodeOf(changed, mockUsdcDeployedBytecode)).toBe(false);
  });
});
