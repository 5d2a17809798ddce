import { mockUsdcAbi } from '@holdfast/contracts/escrow';
import { type EscrowTerms, signAuthorizationFunding, signPermitFunding } from '@holdfast/escrow';
import { type RunningProcesses, startServiceProcesses } from '@holdfast/test-fixtures';
import { type Address, createTestClient, getAddress, type Hex, http, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect } from 'vitest';
import { LOCAL_RELAYER_KEY } from '../../src/config.js';
import { type ChainWorld, platformWithCredentials, startChain } from './chain.js';
import { bearer, call, type Loose, testSql } from './harness.js';

export const RELAYER = privateKeyToAccount(LOCAL_RELAYER_KEY).address;
export const newPayer = () => privateKeyToAccount(generatePrivateKey());

/** The relayer's nonce on chain: a transaction sent costs gas and moves it; a refusal must not. */
export const relayerNonce = (world: ChainWorld, address: Address = RELAYER) =>
  world.publicClient.getTransactionCount({ address, blockTag: 'pending' });

export const testClientOf = (world: ChainWorld) => createTestClient({ mode: 'anvil', transport: http(world.anvil.rpcUrl) });

/** A transaction from `payer` created through the API (its create answer carries the escrow's terms). */
export async function createFor(url: string, token: string, payer: Address, receiver: Address, amount = 12.5): Promise<Loose> {
  const created = await call(url, 'POST', '/api/v2/transactions', {
    headers: { ...bearer(token), 'idempotency-key': `relay-${Math.random()}` },
    body: { fromAddress: payer, toAddress: receiver, amount, signerType: 'external_wallet' },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

/** The terms a payer's wallet reads from the create answer's `escrow`. */
export function termsOf(created: Loose, overrides: Partial<EscrowTerms> = {}): { escrow: Address; terms: EscrowTerms } {
  return {
    escrow: getAddress(created.escrow.contractAddress),
    terms: {
      id: created.escrow.onchainId as Hex,
      sender: getAddress(created.fromAddress),
      receiver: getAddress(created.toAddress),
      token: getAddress(created.escrow.tokenAddress),
      amount: BigInt(created.escrow.amountBaseUnits),
      attester: getAddress(created.escrow.attester),
      holdDeadline: BigInt(created.escrow.holdDeadline),
      ...overrides,
    },
  };
}

/** The payer's EIP-3009 body for the transaction (an hour of validity from a minute ago unless told). */
export async function authorizationBody(
  world: ChainWorld,
  signer: LocalAccount,
  created: Loose,
  options: { overrides?: Partial<EscrowTerms>; validAfter?: number; validBefore?: number } = {},
) {
  const { escrow, terms } = termsOf(created, options.overrides);
  const now = Math.floor(Date.now() / 1000);
  const validAfter = options.validAfter ?? now - 60;
  const validBefore = options.validBefore ?? now + 3600;
  const signed = await signAuthorizationFunding({
    client: world.publicClient,
    signer,
    escrow,
    terms,
    window: { validAfter: BigInt(validAfter), validBefore: BigInt(validBefore) },
  });
  return { kind: 'authorization' as const, validAfter, validBefore, signature: signed.signature };
}

/** The payer's EIP-2612 body (permit + EscrowAuthorization), valid for an hour unless told. */
export async function permitBody(world: ChainWorld, signer: LocalAccount, created: Loose, options: { deadline?: number } = {}) {
  const { escrow, terms } = termsOf(created);
  const deadline = options.deadline ?? Math.floor(Date.now() / 1000) + 3600;
  const signed = await signPermitFunding({ client: world.publicClient, signer, escrow, terms, deadline: BigInt(deadline) });
  const { serializeSignature } = await import('viem');
  const permitSignature = serializeSignature({ r: signed.permit.r, s: signed.permit.s, v: BigInt(signed.permit.v) });
  return { kind: 'permit' as const, deadline, permitSignature, escrowSignature: signed.signature };
}

export const mintTo = (world: ChainWorld, to: Address, amount: bigint) => world.mint(to, amount);
export const usdcBalance = (world: ChainWorld, of: Address) =>
  world.publicClient.readContract({ address: world.usdc, abi: mockUsdcAbi, functionName: 'balanceOf', args: [of] });

/**
 * The world of a crash test: a chain and payments as a real process (its built dist/main.js)
 * relaying every 100 ms, started before the file's tests and stopped after. `killAndRestart()`
 * kills it with SIGKILL and starts another on the same database and NATS prefix.
 */
export function relayerCrashWorld(env: Record<string, string> = {}) {
  let world: ChainWorld;
  let first: RunningProcesses;
  let second: RunningProcesses | undefined;
  beforeAll(async () => {
    world = await startChain();
    first = await startServiceProcesses({
      services: ['payments-service'],
      env: { ...world.env, RELAYER_POLL_INTERVAL: '100ms', RELAYER_STUCK_AFTER: '1h', ...env },
    });
  }, 180_000);
  afterAll(async () => {
    await second?.stop();
    await first?.stop();
    await world?.anvil.stop();
  });
  return {
    chain: () => world,
    /** The first process's URL. */
    url: () => first.urls['payments-service']!,
    /** A platform with credentials created through the first process. */
    platform: (name: string) =>
      platformWithCredentials(
        { svc: { url: first.urls['payments-service']!, stop: async () => {} }, admin: first.env.PAYMENTS_BOOTSTRAP_API_KEY! },
        name,
      ),
    kill: () => first.kill('payments-service', 'SIGKILL'),
    /** Another process on the first one's database and NATS prefix; its URL. */
    async restart(): Promise<string> {
      const { PAYMENTS_PORT: _port, ...env } = first.env;
      second = await startServiceProcesses({ services: ['payments-service'], env, join: { db: first.db, nats: first.nats } });
      return second.urls['payments-service']!;
    },
    sql: () => testSql(first.db),
  };
}
