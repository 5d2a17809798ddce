// Ponder's configuration for scripts/bench/ponder.ts: the escrow contract on the bench's anvil, its
// events from the block it was deployed in, into a fresh PostgreSQL database. The bench writes
// abi.ts (the contract's ABI from @holdfast/contracts/escrow) and sets the environment:
// PONDER_RPC_URL, PONDER_CHAIN_ID, ESCROW_ADDRESS, ESCROW_START_BLOCK, DATABASE_URL, and
// PONDER_MAX_RPS for the tuned run (unset: Ponder's default of 50 requests a second).
import { createConfig } from 'ponder';
import { http } from 'viem';
import { holdfastEscrowAbi } from './abi.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const maxRequestsPerSecond = process.env.PONDER_MAX_RPS ? Number(process.env.PONDER_MAX_RPS) : undefined;

export default createConfig({
  database: { kind: 'postgres', connectionString: env('DATABASE_URL') },
  networks: {
    anvil: {
      chainId: Number(env('PONDER_CHAIN_ID')),
      transport: http(env('PONDER_RPC_URL')),
      ...(maxRequestsPerSecond === undefined ? {} : { maxRequestsPerSecond }),
    },
  },
  contracts: {
    HoldfastEscrow: {
      network: 'anvil',
      abi: holdfastEscrowAbi,
      address: env('ESCROW_ADDRESS') as `0x${string}`,
      startBlock: Number(env('ESCROW_START_BLOCK')),
    },
  },
});
