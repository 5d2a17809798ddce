import { describe, expect, it } from 'vitest';
import {
  confirmationsFor,
  DEFAULT_CONFIRMATIONS,
  EVM_NETWORKS,
  networksWithoutRpc,
  parseConfirmations,
  parseEscrowContracts,
  parseNetworkIntegers,
  parseTokenContracts,
} from '../src/index.js';

const ESCROW = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
const TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

describe('ESCROW_CONTRACTS', () => {
  it('reads network=address@deploymentBlock entries, several per network allowed', () => {
    const parsed = parseEscrowContracts(`base-sepolia=${ESCROW}@2, base-sepolia=${TOKEN}@0,base=${ESCROW}@31337000`);
    expect(parsed.problems).toEqual([]);
    expect(parsed.value).toEqual([
      { network: 'base-sepolia', address: ESCROW.toLowerCase(), deploymentBlock: 2n },
      { network: 'base-sepolia', address: TOKEN.toLowerCase(), deploymentBlock: 0n },
      { network: 'base', address: ESCROW.toLowerCase(), deploymentBlock: 31337000n },
    ]);
    expect(parseEscrowContracts(undefined)).toEqual({ value: [], problems: [] });
  });

  it('names each bad entry on a line of its own', () => {
    const { problems } = parseEscrowContracts(
      `base-sepolia=${ESCROW},solana=${ESCROW}@1,base=0x12@1,base=${ESCROW}@-3,base=${ESCROW}@5,base=${ESCROW.toLowerCase()}@6`,
    );
    expect(problems).toEqual([
      `ESCROW_CONTRACTS: "base-sepolia=${ESCROW}": must be network=address@deploymentBlock, e.g. base-sepolia=0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512@2`,
      `ESCROW_CONTRACTS: "solana=${ESCROW}@1": "solana" is not an EVM network (one of ethereum, base, optimism, arbitrum, base-sepolia, ethereum-sepolia, optimism-sepolia, arbitrum-sepolia)`,
      'ESCROW_CONTRACTS: "base=0x12@1": "0x12" is not a 20-byte hex address (0x and 40 hex digits)',
      `ESCROW_CONTRACTS: "base=${ESCROW}@-3": the deployment block "-3" must be a block number (0 or a positive integer)`,
      `ESCROW_CONTRACTS: "base=${ESCROW.toLowerCase()}@6": ${ESCROW.toLowerCase()} is listed twice for base`,
    ]);
  });
});

describe('TOKEN_CONTRACTS', () => {
  it('reads network:SYMBOL=address entries', () => {
    expect(parseTokenContracts(`base-sepolia:MockUSDC=${TOKEN},base:USDC=${ESCROW}`)).toEqual({
      value: [
        { network: 'base-sepolia', symbol: 'MockUSDC', address: TOKEN.toLowerCase() },
        { network: 'base', symbol: 'USDC', address: ESCROW.toLowerCase() },
      ],
      problems: [],
    });
  });

  it('refuses native ETH, unknown symbols, bad addresses and repeats, one line each', () => {
    const { problems } = parseTokenContracts(
      `base:ETH=${TOKEN},base:usdc=${TOKEN},base:USDC=nope,base-sepolia=${TOKEN},base:USDT=${TOKEN},base:USDT=${ESCROW}`,
    );
    expect(problems).toEqual([
      `TOKEN_CONTRACTS: "base:ETH=${TOKEN}": "ETH" is not a token currency (one of USDC, USDT, MockUSDC, USDG)`,
      `TOKEN_CONTRACTS: "base:usdc=${TOKEN}": "usdc" is not a token currency (one of USDC, USDT, MockUSDC, USDG)`,
      'TOKEN_CONTRACTS: "base:USDC=nope": "nope" is not a 20-byte hex address (0x and 40 hex digits)',
      `TOKEN_CONTRACTS: "base-sepolia=${TOKEN}": must be network:SYMBOL=address, e.g. base-sepolia:MockUSDC=0x5FbDB2315678afecb367f032d93F642f64180aa3`,
      `TOKEN_CONTRACTS: "base:USDT=${ESCROW}": USDT is given twice for base`,
    ]);
  });

  it('takes SPL mints on Solana networks and refuses hex there', () => {
    const mint = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
    expect(parseTokenContracts(`solana-devnet:USDC=${mint}`)).toEqual({
      value: [{ network: 'solana-devnet', symbol: 'USDC', address: mint }],
      problems: [],
    });
    expect(parseTokenContracts(`solana:USDC=${TOKEN}`).problems).toEqual([
      `TOKEN_CONTRACTS: "solana:USDC=${TOKEN}": "${TOKEN}" is not an SPL mint address (base58)`,
    ]);
  });
});

describe('network=integer variables', () => {
  const bounds = { min: 0, max: 1000, what: 'confirmations' };
  it('reads pairs and refuses bad ones', () => {
    expect(parseNetworkIntegers('CHAIN_CONFIRMATIONS', 'base=15, ethereum=0', bounds)).toEqual({
      value: { base: 15, ethereum: 0 },
      problems: [],
    });
    expect(parseNetworkIntegers('CHAIN_CONFIRMATIONS', 'base=1.5,ethereum=1001,mars=3,base=x', bounds).problems).toEqual([
      'CHAIN_CONFIRMATIONS: "base=1.5": confirmations must be an integer from 0 to 1000',
      'CHAIN_CONFIRMATIONS: "ethereum=1001": confirmations must be an integer from 0 to 1000',
      'CHAIN_CONFIRMATIONS: "mars=3": "mars" is not an EVM network (one of ethereum, base, optimism, arbitrum, base-sepolia, ethereum-sepolia, optimism-sepolia, arbitrum-sepolia)',
      'CHAIN_CONFIRMATIONS: "base=x": confirmations must be an integer from 0 to 1000',
    ]);
  });

  it('names networks without an RPC', () => {
    expect(networksWithoutRpc('ESCROW_CONTRACTS', ['base', 'base', 'base-sepolia'], { 'base-sepolia': 'http://x' })).toEqual([
      'ESCROW_CONTRACTS: base has no RPC: add base=<url> to CHAIN_RPC_URLS',
    ]);
  });
});

describe('CHAIN_CONFIRMATIONS', () => {
  it('is 0 in local, the documented default elsewhere, and an override wins everywhere', () => {
    expect(confirmationsFor('base', 'local')).toBe(0);
    expect(confirmationsFor('base', 'production')).toBe(15);
    expect(confirmationsFor('ethereum', 'staging')).toBe(12);
    expect(confirmationsFor('arbitrum-sepolia', 'staging')).toBe(60);
    expect(confirmationsFor('base-sepolia', 'local', { 'base-sepolia': 3 })).toBe(3);
    expect(confirmationsFor('base', 'production', { base: 0, ethereum: 20 })).toBe(0);
    expect(confirmationsFor('ethereum', 'production', { base: 0, ethereum: 20 })).toBe(20);
    // Every EVM network has a default of its own.
    expect(EVM_NETWORKS.filter((n) => DEFAULT_CONFIRMATIONS[n] === undefined)).toEqual([]);
  });

  it('reads its overrides from 0 to 10000, one line per bad entry', () => {
    expect(parseConfirmations('base-sepolia=3, ethereum=10000')).toEqual({ value: { 'base-sepolia': 3, ethereum: 10_000 }, problems: [] });
    expect(parseConfirmations(undefined)).toEqual({ value: {}, problems: [] });
    expect(parseConfirmations('base=-1,ethereum=10001').problems).toEqual([
      'CHAIN_CONFIRMATIONS: "base=-1": confirmations must be an integer from 0 to 10000',
      'CHAIN_CONFIRMATIONS: "ethereum=10001": confirmations must be an integer from 0 to 10000',
    ]);
  });
});
