import { fileURLToPath } from 'node:url';
import { ConfigError } from '@holdfast/config';
import { fileFixture, itRefusesToStart, readinessOf, startTestService } from '@holdfast/test-fixtures';
import { describe, expect, it } from 'vitest';
import { createIndexerService, indexerConfigFrom } from '../../src/index.js';

const service = fileFixture(() =>
  startTestService({ name: 'chain-indexer', configFrom: indexerConfigFrom, create: createIndexerService, chain: true }),
);

describe('chain-indexer process', () => {
  it('is ready while the chain answers and names it when it stops', async () => {
    // No escrow contract yet: the network is followed once one is registered, and ready meanwhile.
    expect((await readinessOf(service.url)).body).toEqual({
      status: 'ready',
      checks: { postgres: 'ok', nats: 'ok', 'chain:base-sepolia': 'ok', 'indexer:base-sepolia': 'ok' },
    });
    await service.anvil?.stop();
    const down = await readinessOf(service.url);
    expect(down.status).toBe(503);
    expect(down.body.failing).toEqual(['chain:base-sepolia']);
  });
});

describe('chain-indexer start-up', () => {
  itRefusesToStart('chain-indexer', fileURLToPath(new URL('../../dist/main.js', import.meta.url)), [
    {
      refuses: 'production without a chain (one is needed outside local) or its NATS credentials',
      env: { APP_ENV: 'production' },
      problems: [
        'CHAIN_RPC_URLS: is required when APP_ENV is production: the indexer needs a chain to follow (missing)',
        "NATS_USER: production needs this process's own NATS user: NATS_USER and NATS_PASSWORD, or NATS_NKEY_SEED (missing)",
      ],
    },
  ]);
});

describe('chain-indexer configuration', () => {
  const problemsOf = (env: Record<string, string>) => {
    try {
      indexerConfigFrom(env);
      return [];
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as ConfigError).problems;
    }
  };
  const ESCROW = '0xA15BB66138824a1c7167f5E85b957d04Dd34E468';

  it('follows each network that has an escrow contract, with 0 confirmations in local and the defaults elsewhere', () => {
    const local = indexerConfigFrom({ ESCROW_CONTRACTS: `base-sepolia=${ESCROW}@2` });
    expect(local.networks).toEqual([
      {
        network: 'base-sepolia',
        chainId: 84532,
        rpcUrl: 'http://127.0.0.1:8545',
        wsUrl: 'ws://127.0.0.1:8545',
        contracts: [{ network: 'base-sepolia', address: ESCROW.toLowerCase(), deploymentBlock: 2n }],
        confirmations: 0,
        // Counted only where the RPC serves no safe/finalized tag (anvil serves both).
        finalityDepths: { safe: 60, finalized: 600 },
      },
    ]);
    expect(local).toMatchObject({ pollIntervalMs: 500, blockRange: 2000, onChainReset: 'reindex', networksWithoutContracts: [] });
    const production = indexerConfigFrom({
      APP_ENV: 'production',
      NATS_USER: 'chain-indexer',
      NATS_PASSWORD: 'pw',
      CHAIN_RPC_URLS: 'base=https://base.example,ethereum=https://eth.example,arbitrum=https://arb.example',
      ESCROW_CONTRACTS: `base=${ESCROW}@100,ethereum=${ESCROW}@200`,
      CHAIN_CONFIRMATIONS: 'ethereum=20',
    });
    expect(production.networks.map((n) => [n.network, n.confirmations])).toEqual([
      ['base', 15],
      ['ethereum', 20],
    ]);
    expect(production).toMatchObject({ onChainReset: 'halt', networksWithoutContracts: ['arbitrum'] });
    // New heads by subscription at the RPC address as wss:// unless CHAIN_WS_URLS says otherwise.
    expect(production.networks.map((n) => n.wsUrl)).toEqual(['wss://base.example', 'wss://eth.example']);
    const named = indexerConfigFrom({ CHAIN_WS_URLS: 'base-sepolia=off', ESCROW_CONTRACTS: `base-sepolia=${ESCROW}@2` });
    expect(named.networks[0]?.wsUrl).toBeUndefined();
  });

  it('names each bad value on a line of its own', () => {
    expect(
      problemsOf({
        ESCROW_CONTRACTS: `base-sepolia=${ESCROW},base=${ESCROW}@1`,
        CHAIN_CONFIRMATIONS: 'base-sepolia=-1',
      }),
    ).toEqual([
      `ESCROW_CONTRACTS: "base-sepolia=${ESCROW}": must be network=address@deploymentBlock, e.g. base-sepolia=0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512@2`,
      'ESCROW_CONTRACTS: base has no RPC: add base=<url> to CHAIN_RPC_URLS',
      'CHAIN_CONFIRMATIONS: "base-sepolia=-1": confirmations must be an integer from 0 to 10000',
    ]);
    expect(problemsOf({ CHAIN_WS_URLS: 'base=wss://base.example' })).toEqual([
      'CHAIN_WS_URLS: base has no RPC: add base=<url> to CHAIN_RPC_URLS',
    ]);
    expect(problemsOf({ INDEXER_BLOCK_RANGE: '0', INDEXER_POLL_INTERVAL: 'often', INDEXER_ON_CHAIN_RESET: 'panic' })).toEqual([
      'INDEXER_POLL_INTERVAL: must be a duration such as 500ms or 2s (got "often")',
      'INDEXER_BLOCK_RANGE: must be an integer from 1 to 100000 (blocks per eth_getLogs call) (got "0")',
      'INDEXER_ON_CHAIN_RESET: must be reindex or halt (got "panic")',
    ]);
  });
});
