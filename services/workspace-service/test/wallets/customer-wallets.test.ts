import { randomBytes, randomUUID } from 'node:crypto';
import { AppError } from '@holdfast/contracts';
import { createSecretBox, tokenHash } from '@holdfast/secrets';
import { type Anvil, freePort, rejectionOf, startAnvil, testLogger } from '@holdfast/test-fixtures';
import { eq } from 'drizzle-orm';
import { type Address, encodeFunctionData, getAddress, type Hex, parseEther } from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage, parseSiweMessage } from 'viem/siwe';
import { serializeErc6492Signature } from 'viem/utils';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { customerWallets, walletLinkNonces } from '../../src/db/schema.js';
import { createBalanceReader } from '../../src/modules/wallets/balances/service.js';
import { createCustomerWalletRepository } from '../../src/modules/wallets/customer/repository.js';
import { type CustomerWalletService, createCustomerWalletService, LINK_STATEMENT } from '../../src/modules/wallets/customer/service.js';
import { createWalletProviderConfigRepository } from '../../src/modules/wallets/provider-configs/repository.js';
import {
  createWalletProviderConfigService,
  FULL_CONFIG_ACCESS,
  type WalletProviderConfigService,
} from '../../src/modules/wallets/provider-configs/service.js';
import { anvilClients } from '../support/chain.js';
import { auditRecorder, openTestDatabase, type TestDb } from '../support/db.js';
import { compileFixtures } from '../support/solidity.js';
import { insertCustomer, insertWorkspaces } from '../support/tenants.js';
import { startCustodyA } from '../support/vendors.js';

const DOMAIN = 'pay.holdfast.test';
const URI = 'https://pay.holdfast.test/link';
const CHAIN_ID = 84532;

let db: TestDb;
let anvil: Anvil;
let vendorA: Awaited<ReturnType<typeof startCustodyA>>;
let configs: WalletProviderConfigService;
let service: CustomerWalletService;
let build: (overrides?: { chainRpcUrls?: Record<string, string>; now?: () => Date }) => CustomerWalletService;
const audit = auditRecorder();
const customers = new Map<string, string>();
const workspace = randomUUID();
const otherWorkspace = randomUUID();
const actor = { actorId: null };

/** A customer of `workspace` (a real row: wallet rows reference it). */
async function newCustomer(): Promise<string> {
  const id = await insertCustomer(db.db, workspace);
  customers.set(id, workspace);
  return id;
}

const appError = (promise: Promise<unknown>) => rejectionOf(promise, AppError);

/** The message a wallet would sign, from the fields the nonce answer gives (overridable). */
function messageFor(
  address: Address,
  fields: { nonce: string; issuedAt: string; expirationTime: string },
  overrides: Record<string, unknown> = {},
) {
  return createSiweMessage({
    domain: DOMAIN,
    uri: URI,
    version: '1',
    chainId: CHAIN_ID,
    statement: LINK_STATEMENT,
    address,
    nonce: fields.nonce,
    issuedAt: new Date(fields.issuedAt),
    expirationTime: new Date(fields.expirationTime),
    ...overrides,
  });
}

async function signedLink(customerId: string, signer: PrivateKeyAccount, overrides: Record<string, unknown> = {}) {
  const issued = await service.issueNonce(workspace, customerId, {});
  const message = messageFor(signer.address, issued, overrides);
  return { message, signature: await signer.signMessage({ message }), walletAddress: signer.address, nonce: issued.nonce };
}

beforeAll(async () => {
  [db, anvil, vendorA] = await Promise.all([openTestDatabase(), startAnvil(), startCustodyA()]);
  await insertWorkspaces(db.db, [workspace, otherWorkspace]);
  const logger = testLogger('customer-wallets');
  configs = createWalletProviderConfigService({
    repository: createWalletProviderConfigRepository(db.db),
    secrets: createSecretBox(randomBytes(32)),
    audit: audit.sink,
    appEnv: 'local',
    vendor: { timeoutMs: 400, appEnv: 'local' },
    logger,
  });
  build = (overrides = {}) => {
    const chainRpcUrls = overrides.chainRpcUrls ?? { 'base-sepolia': anvil.rpcUrl, 'ethereum-sepolia': anvil.rpcUrl };
    return createCustomerWalletService({
      repository: createCustomerWalletRepository(db.db),
      findCustomer: async (c) => (customers.has(c) ? { workspaceId: customers.get(c) as string } : null),
      chainRpcUrls,
      siwe: { domain: DOMAIN, uri: URI, nonceTtlMs: 10 * 60_000 },
      rpcTimeoutMs: 2000,
      configs,
      balances: createBalanceReader({
        chainRpcUrls: { 'base-sepolia': anvil.rpcUrl },
        solanaRpcUrls: {},
        tokenContracts: [],
        timeoutMs: 2000,
        logger,
      }),
      audit: audit.sink,
      appEnv: 'local',
      logger,
      ...(overrides.now ? { now: overrides.now } : {}),
    });
  };
  service = build();
});

afterAll(async () => {
  await Promise.all([db?.drop(), anvil?.stop(), vendorA?.stop()]);
});

beforeEach(() => {
  vendorA.mode = 'ok';
});

describe('wallet link nonces', () => {
  it('issues a single-use nonce bound to the customer, stored only as a hash', async () => {
    const customerId = await newCustomer();
    const account = privateKeyToAccount(generatePrivateKey());
    const issued = await service.issueNonce(workspace, customerId, { walletAddress: account.address.toLowerCase() as Address });
    expect(issued).toEqual({
      nonce: expect.stringMatching(/^[0-9a-f]{32}$/),
      domain: DOMAIN,
      uri: URI,
      version: '1',
      chainId: CHAIN_ID,
      statement: LINK_STATEMENT,
      issuedAt: expect.any(String),
      expirationTime: expect.any(String),
      message: expect.stringContaining(`${DOMAIN} wants you to sign in with your Ethereum account:\n${account.address}`),
    });
    expect(Date.parse(issued.expirationTime) - Date.parse(issued.issuedAt)).toBe(10 * 60_000);
    expect(parseSiweMessage(issued.message!)).toMatchObject({ nonce: issued.nonce, chainId: CHAIN_ID, domain: DOMAIN });
    const rows = await db.db.select().from(walletLinkNonces).where(eq(walletLinkNonces.customerId, customerId));
    expect(rows).toEqual([
      expect.objectContaining({ nonceHash: tokenHash(issued.nonce), workspaceId: workspace, chainId: CHAIN_ID, usedAt: null }),
    ]);
    expect(JSON.stringify(rows)).not.toContain(issued.nonce);
  });

  it('refuses a chain without an RPC and an unknown customer', async () => {
    const customerId = await newCustomer();
    expect((await appError(service.issueNonce(workspace, customerId, { chainId: 1 }))).toObject()).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { errors: [{ field: 'chainId', reason: 'must be one of: 84532, 11155111' }] },
    });
    expect((await appError(service.issueNonce(workspace, randomUUID(), {}))).code).toBe('NOT_FOUND');
    expect((await appError(service.issueNonce(otherWorkspace, customerId, {}))).code).toBe('NOT_FOUND');
  });
});

describe('link-wallet with Sign-In with Ethereum', () => {
  it('links an ordinary account from a real viem-signed message, consuming the nonce', async () => {
    const customerId = await newCustomer();
    const signer = privateKeyToAccount(generatePrivateKey());
    const { message, signature, nonce } = await signedLink(customerId, signer);
    const linked = await service.linkWallet(
      workspace,
      customerId,
      { walletAddress: signer.address.toLowerCase(), message, signature },
      actor,
    );
    expect(linked).toEqual({
      customerId,
      walletAddress: signer.address,
      walletLinkedAt: expect.any(String),
      chainId: CHAIN_ID,
      source: 'siwe',
    });
    expect(await service.getWallet(workspace, customerId)).toEqual(linked);
    const [nonceRow] = await db.db
      .select()
      .from(walletLinkNonces)
      .where(eq(walletLinkNonces.nonceHash, tokenHash(nonce)));
    expect(nonceRow?.usedAt).toBeInstanceOf(Date);
    expect(audit.entries.at(-1)).toMatchObject({
      action: 'customer_wallet.link',
      resourceId: customerId,
      workspaceId: workspace,
      changes: { walletAddress: { from: null, to: signer.address } },
    });

    // Its balance on the local chain.
    await anvilClients(anvil.rpcUrl).fund(signer.address, '0.5');
    expect(await service.getWalletBalances(workspace, customerId)).toEqual({
      balances: [{ address: signer.address, network: 'base-sepolia', nativeBalance: '0.5', nativeSymbol: 'ETH', tokens: [] }],
      warnings: [],
    });
  });

  it('refuses a replayed nonce, by the same customer or another one', async () => {
    const customerId = await newCustomer();
    const signer = privateKeyToAccount(generatePrivateKey());
    const link = await signedLink(customerId, signer);
    await service.linkWallet(workspace, customerId, link, actor);
    const replay = await appError(service.linkWallet(workspace, customerId, link, actor));
    expect(replay.toObject()).toMatchObject({ code: 'INVALID_CODE', statusCode: 400 });
    const thief = await newCustomer();
    expect((await appError(service.linkWallet(workspace, thief, link, actor))).code).toBe('INVALID_CODE');
    expect(await service.getWallet(workspace, thief)).toBeNull();
  });

  it('gives a customer who already has a wallet WALLET_ALREADY_LINKED', async () => {
    const customerId = await newCustomer();
    const early = await service.issueNonce(workspace, customerId, {});
    await service.linkWallet(workspace, customerId, await signedLink(customerId, privateKeyToAccount(generatePrivateKey())), actor);
    const second = privateKeyToAccount(generatePrivateKey());
    const message = messageFor(second.address, early);
    const error = await appError(
      service.linkWallet(
        workspace,
        customerId,
        { walletAddress: second.address, message, signature: await second.signMessage({ message }) },
        actor,
      ),
    );
    expect(error.toObject()).toMatchObject({ code: 'WALLET_ALREADY_LINKED', statusCode: 400 });
    expect((await appError(service.issueNonce(workspace, customerId, {}))).code).toBe('WALLET_ALREADY_LINKED');
  });

  it.each([
    ['a wrong domain', { domain: 'evil.example' }, { field: 'message', reason: `must be for the domain ${DOMAIN}` }],
    // Issue 13 item 7: a message signed on another site (same domain claimed, its own URI) links nothing.
    ['a wrong URI', { uri: 'https://evil.example/link' }, { field: 'message', reason: `must be for the URI ${URI}` }],
    ['a chain that is not configured', { chainId: 1 }, { field: 'message', reason: 'must be for one of the chains 84532, 11155111' }],
    [
      'another chain than the nonce',
      { chainId: 11155111 },
      { field: 'message', reason: 'must be for chain 84532, the chain the nonce was issued for' },
    ],
    [
      'an expired message',
      { expirationTime: new Date(Date.now() - 1000) },
      { field: 'message', reason: 'has expired or is not valid yet' },
    ],
    [
      'a message not valid yet',
      { notBefore: new Date(Date.now() + 3_600_000) },
      { field: 'message', reason: 'has expired or is not valid yet' },
    ],
  ])('refuses %s and leaves the nonce usable', async (_name, overrides, problem) => {
    const customerId = await newCustomer();
    const signer = privateKeyToAccount(generatePrivateKey());
    const bad = await signedLink(customerId, signer, overrides);
    const error = await appError(service.linkWallet(workspace, customerId, bad, actor));
    expect(error.toObject()).toMatchObject({ code: 'VALIDATION_ERROR', statusCode: 400, details: { errors: [problem] } });
    expect(await service.getWallet(workspace, customerId)).toBeNull();
    // The honest message with the same nonce still links.
    const [issuedAt, expirationTime] = [parseSiweMessage(bad.message).issuedAt!, new Date(Date.now() + 60_000)];
    const message = messageFor(signer.address, {
      nonce: bad.nonce,
      issuedAt: issuedAt.toISOString(),
      expirationTime: expirationTime.toISOString(),
    });
    await service.linkWallet(
      workspace,
      customerId,
      { walletAddress: signer.address, message, signature: await signer.signMessage({ message }) },
      actor,
    );
  });

  it('refuses a bad signature, a signature by someone else and an address that differs from walletAddress', async () => {
    const customerId = await newCustomer();
    const signer = privateKeyToAccount(generatePrivateKey());
    const other = privateKeyToAccount(generatePrivateKey());
    const link = await signedLink(customerId, signer);
    const bySomeoneElse = await other.signMessage({ message: link.message });
    const signatureProblem = {
      code: 'VALIDATION_ERROR',
      details: { errors: [{ field: 'signature', reason: 'does not prove ownership of walletAddress' }] },
    };
    expect(
      (await appError(service.linkWallet(workspace, customerId, { ...link, signature: bySomeoneElse }, actor))).toObject(),
    ).toMatchObject(signatureProblem);
    expect((await appError(service.linkWallet(workspace, customerId, { ...link, signature: '0x1234' }, actor))).toObject()).toMatchObject(
      signatureProblem,
    );
    expect(
      (await appError(service.linkWallet(workspace, customerId, { ...link, walletAddress: other.address }, actor))).toObject(),
    ).toMatchObject({
      details: { errors: [{ field: 'walletAddress', reason: 'differs from the address in the signed message' }] },
    });
    expect((await appError(service.linkWallet(workspace, customerId, { ...link, message: 'hello' }, actor))).toObject()).toMatchObject({
      details: { errors: [{ field: 'message', reason: 'is not an EIP-4361 (Sign-In with Ethereum) message' }] },
    });
    expect(await service.getWallet(workspace, customerId)).toBeNull();
    await service.linkWallet(workspace, customerId, link, actor);
  });

  it('refuses a nonce that expired before it was used', async () => {
    const customerId = await newCustomer();
    const signer = privateKeyToAccount(generatePrivateKey());
    const link = await signedLink(customerId, signer, { expirationTime: new Date(Date.now() + 3_600_000) });
    const later = build({ now: () => new Date(Date.now() + 11 * 60_000) });
    expect((await appError(later.linkWallet(workspace, customerId, link, actor))).code).toBe('INVALID_CODE');
  });

  it('refuses an address another customer of the workspace already linked (409)', async () => {
    const signer = privateKeyToAccount(generatePrivateKey());
    const first = await newCustomer();
    await service.linkWallet(workspace, first, await signedLink(first, signer), actor);
    const second = await newCustomer();
    const link = await signedLink(second, signer);
    expect((await appError(service.linkWallet(workspace, second, link, actor))).toObject()).toMatchObject({
      code: 'CONFLICT',
      statusCode: 409,
    });
    // Nothing was consumed or stored for the refused one.
    expect(await service.getWallet(workspace, second)).toBeNull();
    const [nonce] = await db.db
      .select()
      .from(walletLinkNonces)
      .where(eq(walletLinkNonces.nonceHash, tokenHash(link.nonce)));
    expect(nonce?.usedAt).toBeNull();
  });

  describe('a smart-contract wallet (ERC-1271) deployed on anvil', () => {
    let owner: PrivateKeyAccount;
    let contractWallet: Address;
    let factory: Address;
    let fixtures: ReturnType<typeof compileFixtures>;

    beforeAll(async () => {
      owner = privateKeyToAccount(generatePrivateKey());
      fixtures = compileFixtures('OwnedWallet.sol');
      const chain = anvilClients(anvil.rpcUrl);
      const wallet = fixtures.OwnedWallet!;
      const receipt = await chain.mined(
        chain.walletClient.deployContract({ abi: wallet.abi, bytecode: wallet.bytecode, args: [owner.address] }),
      );
      contractWallet = getAddress(receipt.contractAddress as string);
      const factoryFixture = fixtures.OwnedWalletFactory!;
      const deployed = await chain.mined(chain.walletClient.deployContract({ abi: factoryFixture.abi, bytecode: factoryFixture.bytecode }));
      factory = getAddress(deployed.contractAddress as string);
    });

    it('links a wallet that does not exist yet from its counterfactual signature (ERC-6492)', async () => {
      const salt = `0x${randomBytes(32).toString('hex')}` as Hex;
      const chain = anvilClients(anvil.rpcUrl);
      const factoryAbi = fixtures.OwnedWalletFactory!.abi;
      const predicted = (await chain.publicClient.readContract({
        address: factory,
        abi: factoryAbi,
        functionName: 'addressOf',
        args: [owner.address, salt],
      })) as Address;
      expect(await chain.publicClient.getCode({ address: predicted })).toBeUndefined();
      const customerId = await newCustomer();
      const issued = await service.issueNonce(workspace, customerId, { walletAddress: predicted });
      const signature = serializeErc6492Signature({
        address: factory,
        data: encodeFunctionData({ abi: factoryAbi, functionName: 'deploy', args: [owner.address, salt] }),
        signature: await owner.signMessage({ message: issued.message! }),
      });
      const linked = await service.linkWallet(
        workspace,
        customerId,
        { walletAddress: predicted, message: issued.message!, signature },
        actor,
      );
      expect(linked.walletAddress).toBe(getAddress(predicted));
      // Verified by simulation: nothing was deployed.
      expect(await chain.publicClient.getCode({ address: predicted })).toBeUndefined();
    });

    it('links the contract wallet with its owner signature, verified on chain', async () => {
      const customerId = await newCustomer();
      const issued = await service.issueNonce(workspace, customerId, { walletAddress: contractWallet });
      const message = issued.message!;
      const signature = await owner.signMessage({ message });
      const linked = await service.linkWallet(workspace, customerId, { walletAddress: contractWallet, message, signature }, actor);
      expect(linked).toMatchObject({ walletAddress: contractWallet, source: 'siwe' });
    });

    it('refuses a signature the contract does not accept', async () => {
      const customerId = await newCustomer();
      const issued = await service.issueNonce(workspace, customerId, { walletAddress: contractWallet });
      const signature = await privateKeyToAccount(generatePrivateKey()).signMessage({ message: issued.message! });
      const error = await appError(
        service.linkWallet(workspace, customerId, { walletAddress: contractWallet, message: issued.message!, signature }, actor),
      );
      expect(error.toObject()).toMatchObject({ details: { errors: [{ field: 'signature' }] } });
    });

    it('answers 503 when the chain cannot be asked, while ordinary accounts still link', async () => {
      const down = build({ chainRpcUrls: { 'base-sepolia': `http://127.0.0.1:${await freePort()}` } });
      const contractCustomer = await newCustomer();
      const issued = await down.issueNonce(workspace, contractCustomer, { walletAddress: contractWallet });
      const error = await appError(
        down.linkWallet(
          workspace,
          contractCustomer,
          { walletAddress: contractWallet, message: issued.message!, signature: await owner.signMessage({ message: issued.message! }) },
          actor,
        ),
      );
      expect(error.toObject()).toMatchObject({ code: 'SERVICE_UNAVAILABLE', statusCode: 503 });

      const person = await newCustomer();
      const signer = privateKeyToAccount(generatePrivateKey());
      const ordinary = await down.issueNonce(workspace, person, { walletAddress: signer.address });
      const linked = await down.linkWallet(
        workspace,
        person,
        { walletAddress: signer.address, message: ordinary.message!, signature: await signer.signMessage({ message: ordinary.message! }) },
        actor,
      );
      expect(linked.walletAddress).toBe(signer.address);
    });
  });
});

describe('CUSTODY_A customer wallets', () => {
  it('needs a CUSTODY_A config', async () => {
    const customerId = await newCustomer();
    expect(await service.getCustodyAWallet(customerId, 'all')).toEqual({
      hasWallet: false,
      walletId: null,
      walletAddress: null,
      walletLinkedAt: null,
    });
    expect((await appError(service.createCustodyAWallet(customerId, {}, 'all', actor))).toObject()).toMatchObject({
      code: 'WALLET_PROVIDER_NOT_CONFIGURED',
      statusCode: 400,
    });
  });

  describe('with a config', () => {
    beforeAll(async () => {
      await configs.create(
        {
          workspaceId: workspace,
          providerType: 'CUSTODY_A',
          providerName: 'A',
          config: vendorA.config,
          walletSetId: vendorA.walletSetId,
          isDefault: true,
        },
        FULL_CONFIG_ACCESS,
        actor,
      );
    });

    it('creates the customer wallet at the vendor, once', async () => {
      const customerId = await newCustomer();
      const created = await service.createCustodyAWallet(customerId, {}, 'all', actor);
      expect(created).toEqual({
        success: true,
        walletId: expect.any(String),
        walletAddress: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
        blockchain: 'BASE_SEPOLIA',
        createdAt: expect.any(String),
      });
      expect(vendorA.requests.at(-1)?.json).toMatchObject({
        walletSetId: vendorA.walletSetId,
        blockchains: ['BASE-SEPOLIA'],
        refId: customerId,
      });
      expect(await service.getCustodyAWallet(customerId, 'all')).toEqual({
        hasWallet: true,
        walletId: created.walletId,
        walletAddress: created.walletAddress,
        walletLinkedAt: created.createdAt,
      });
      expect(await service.getWallet(workspace, customerId)).toMatchObject({
        walletAddress: created.walletAddress,
        source: 'custody_a',
        chainId: CHAIN_ID,
      });
      expect((await appError(service.createCustodyAWallet(customerId, { network: 'ETH' }, 'all', actor))).code).toBe(
        'WALLET_ALREADY_LINKED',
      );
    });

    it('sends the same idempotency key for the same customer, so a retry after a lost answer makes no second wallet', async () => {
      const customerId = await newCustomer();
      await service.createCustodyAWallet(customerId, { network: 'ETH_SEPOLIA' }, 'all', actor);
      const first = vendorA.requests.at(-1)?.json as { idempotencyKey: string; blockchains: string[] };
      expect(first.blockchains).toEqual(['ETH-SEPOLIA']);
      await db.db.delete(customerWallets).where(eq(customerWallets.customerId, customerId));
      const again = await service.createCustodyAWallet(customerId, { network: 'ETH_SEPOLIA' }, 'all', actor);
      expect((vendorA.requests.at(-1)!.json as { idempotencyKey: string }).idempotencyKey).toBe(first.idempotencyKey);
      expect(vendorA.wallets.filter((w) => w.refId === customerId)).toHaveLength(1);
      expect(again.walletId).toBe(vendorA.wallets.find((w) => w.refId === customerId)?.id);
    });

    it('reads the balance through the vendor', async () => {
      const customerId = await newCustomer();
      const created = await service.createCustodyAWallet(customerId, {}, 'all', actor);
      vendorA.balances.set(created.walletId, [
        { token: { symbol: 'ETH', isNative: true, tokenAddress: null }, amount: '0.01' },
        { token: { symbol: 'USDC', isNative: false, tokenAddress: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' }, amount: '42.5' },
      ]);
      expect(await service.getCustodyAWalletBalance(customerId, 'all')).toEqual({
        walletId: created.walletId,
        walletAddress: created.walletAddress,
        blockchain: 'BASE_SEPOLIA',
        network: 'base-sepolia',
        nativeBalance: '0.01',
        nativeSymbol: 'ETH',
        tokens: [{ symbol: 'USDC', balance: '42.5', contractAddress: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' }],
      });
      expect((await appError(service.getCustodyAWalletBalance(await newCustomer(), 'all'))).code).toBe('NOT_FOUND');
    });

    it.each([
      ['unauthorized', 'unauthorized'],
      ['hang', 'timeout'],
      ['malformed', 'malformed_response'],
    ] as const)('answers 502 and stores nothing when the vendor is %s', async (mode, reason) => {
      const customerId = await newCustomer();
      vendorA.mode = mode;
      const error = await appError(service.createCustodyAWallet(customerId, {}, 'all', actor));
      expect(error.toObject()).toMatchObject({
        code: 'WALLET_PROVIDER_ERROR',
        statusCode: 502,
        details: { provider: 'CUSTODY_A', reason },
      });
      expect(JSON.stringify(error.toObject())).not.toContain(vendorA.config.apiKey);
      expect(await service.getWallet(workspace, customerId)).toBeNull();
    });

    it('refuses a customer who linked a wallet by signature, and unknown customers', async () => {
      const customerId = await newCustomer();
      const signer = privateKeyToAccount(generatePrivateKey());
      await service.linkWallet(workspace, customerId, await signedLink(customerId, signer), actor);
      expect((await appError(service.createCustodyAWallet(customerId, {}, 'all', actor))).code).toBe('WALLET_ALREADY_LINKED');
      expect(await service.getCustodyAWallet(customerId, 'all')).toMatchObject({ hasWallet: false });
      expect((await appError(service.getCustodyAWallet(randomUUID(), 'all'))).code).toBe('NOT_FOUND');
      expect((await appError(service.createCustodyAWallet(customerId, {}, [otherWorkspace], actor))).toObject()).toMatchObject({
        code: 'NOT_FOUND',
        statusCode: 404,
      });
      expect((await appError(service.getCustodyAWallet(customerId, [otherWorkspace]))).code).toBe('NOT_FOUND');
      expect(await service.getCustodyAWallet(customerId, [workspace])).toMatchObject({ hasWallet: false });
    });
  });
});

describe('balances of a linked wallet', () => {
  it('is 404 for a customer without a wallet', async () => {
    expect((await appError(service.getWalletBalances(workspace, await newCustomer()))).code).toBe('NOT_FOUND');
  });

  it('reads the linked address on the local chain', async () => {
    const customerId = await newCustomer();
    const signer = privateKeyToAccount(generatePrivateKey());
    await service.linkWallet(workspace, customerId, await signedLink(customerId, signer), actor);
    await anvilClients(anvil.rpcUrl).fund(signer.address, '1.25');
    const { balances } = await service.getWalletBalances(workspace, customerId);
    expect(balances[0]).toMatchObject({ address: signer.address, nativeBalance: '1.25' });
    expect(parseEther(balances[0]!.nativeBalance)).toBe(parseEther('1.25'));
    expect(signer.address as Hex).toMatch(/^0x/);
  });
});
