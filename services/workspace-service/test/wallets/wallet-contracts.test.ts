import SwaggerParser from '@apidevtools/swagger-parser';
import {
  CheckDuplicateQuery,
  ConnectionTestResult,
  ContractDeployed,
  ContractDeployment,
  ContractDeploymentList,
  ContractForNetwork,
  CreateCustodyAWalletBody,
  CreateWalletAccountsBody,
  CreateWalletProviderConfigBody,
  CustodyAWalletBalance,
  CustodyAWalletCreated,
  CustodyAWalletStatus,
  CustomerWallet,
  DuplicateCheckResult,
  ExternalWalletConfig,
  ExternalWalletConfigDeleted,
  ExternalWalletConfigList,
  LinkWalletBody,
  ListWalletProviderConfigsQuery,
  SuccessEnvelope,
  UpdateWalletProviderConfigBody,
  UpsertExternalWalletConfigBody,
  WalletAccounts,
  WalletBalances,
  WalletLinkNonce,
  WalletLinkNonceBody,
  WalletProviderConfig,
  WalletProviderConfigList,
  WalletProviderStatus,
} from '@holdfast/contracts';
import { createHttpApp, type HttpApp } from '@holdfast/http-kit';
import { testLogger } from '@holdfast/test-fixtures';
import type { TSchema } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The request and answer schemas of the wallet features, mounted as the routes of the next phase
// will mount them: they must compile in Fastify (Ajv and the serializer), describe a valid OpenAPI
// document, and carry every field of a real answer through serialization.

const now = '2026-11-22T10:00:00.000Z';
const id = '0193a3c2-7f10-7a55-9d1e-4c2b8e0f1a23';
const workspaceId = '6f9619ff-8b86-4d01-b42d-00cf4fc964ff';
const address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

const config = {
  id,
  workspaceId,
  isGlobal: false,
  providerType: 'CUSTODY_A',
  providerName: 'A',
  walletSetId: 'ws_1',
  defaultWalletId: null,
  isActive: true,
  isDefault: true,
  supportedNetworks: ['base-sepolia'],
  metadata: { team: 'ops' },
  version: 3,
  createdAt: now,
  updatedAt: now,
};
const deployment = {
  id,
  workspaceId,
  globalTemplateId: null,
  network: 'base-sepolia',
  contractType: 'escrow',
  contractAddress: address,
  factoryAddress: null,
  deploymentTxHash: `0x${'ab'.repeat(32)}`,
  deployedAt: now,
  deployedBy: workspaceId,
  status: 'active',
  isShared: false,
  verified: false,
  verifiedAt: null,
  metadata: { gasUsed: 1_234_567, blockNumber: 42, deployerAddress: address, factoryVersion: null },
  createdAt: now,
  updatedAt: now,
};
const entry = {
  address,
  network: 'base-sepolia',
  nativeBalance: '1.5',
  nativeSymbol: 'ETH',
  tokens: [{ symbol: 'MockUSDC', balance: '2.5', contractAddress: address }],
};

/** [operationId, method, path, body or query schema, answer schema, answer]. */
const routes: [string, 'GET' | 'POST' | 'PUT' | 'PATCH', string, { body?: TSchema; querystring?: TSchema }, TSchema, unknown][] = [
  ['createWalletProviderConfig', 'POST', '/wpc', { body: CreateWalletProviderConfigBody }, WalletProviderConfig, config],
  [
    'listWalletProviderConfigs',
    'GET',
    '/wpc',
    { querystring: ListWalletProviderConfigsQuery },
    WalletProviderConfigList,
    { data: [config], total: 1, page: 1, limit: 20, totalPages: 1 },
  ],
  ['updateWalletProviderConfig', 'PATCH', '/wpc/x', { body: UpdateWalletProviderConfigBody }, WalletProviderConfig, config],
  [
    'checkDuplicate',
    'GET',
    '/wpc/check-duplicate',
    { querystring: CheckDuplicateQuery },
    DuplicateCheckResult,
    { isDuplicate: true, existingConfig: config },
  ],
  [
    'walletProviderStatus',
    'GET',
    '/wpc/status',
    {},
    WalletProviderStatus,
    {
      configs: [
        {
          id,
          workspaceId,
          isGlobal: false,
          providerType: 'CUSTODY_A',
          providerName: 'A',
          version: 3,
          isActive: true,
          isDefault: true,
          updatedAt: now,
        },
      ],
      total: 1,
      timestamp: now,
    },
  ],
  [
    'testConnection',
    'POST',
    '/wpc/x/test-connection',
    {},
    ConnectionTestResult,
    { success: false, message: 'no', details: { reason: 'timeout', providerType: 'CUSTODY_A' } },
  ],
  ['listExternal', 'GET', '/ewc', {}, ExternalWalletConfigList, { configs: [] }],
  [
    'upsertExternal',
    'PUT',
    '/ewc/x',
    { body: UpsertExternalWalletConfigBody },
    ExternalWalletConfig,
    {
      id,
      workspaceId,
      providerType: 'EXTERNAL_WALLET_1',
      isEnabled: true,
      allowedNetworks: ['BASE_SEPOLIA'],
      allowedTemplateIds: ['t'],
      config: { projectId: 'p', rpcProviderApiKey: 'k' },
      createdAt: now,
      updatedAt: now,
    },
  ],
  ['deleteExternal', 'POST', '/ewc/x/delete', {}, ExternalWalletConfigDeleted, { message: 'EXTERNAL_WALLET_1 configuration deleted' }],
  [
    'createAccounts',
    'POST',
    '/accounts',
    { body: CreateWalletAccountsBody },
    WalletAccounts,
    {
      accounts: [{ address, addressFormat: 'ADDRESS_FORMAT_ETHEREUM', curve: 'CURVE_SECP256K1', path: null }],
      message: 'Created 1 account(s)',
    },
  ],
  [
    'balances',
    'GET',
    '/balances',
    {},
    WalletBalances,
    { balances: [entry], warnings: [{ code: 'RPC_TIMEOUT', message: 'late', network: 'base', address }] },
  ],
  [
    'walletNonce',
    'POST',
    '/nonce',
    { body: WalletLinkNonceBody },
    WalletLinkNonce,
    {
      nonce: 'n'.repeat(32),
      domain: 'localhost:3002',
      uri: 'http://localhost:3002',
      version: '1',
      chainId: 84532,
      statement: 's',
      issuedAt: now,
      expirationTime: now,
      message: 'm',
    },
  ],
  [
    'linkWallet',
    'POST',
    '/link',
    { body: LinkWalletBody },
    CustomerWallet,
    { customerId: id, walletAddress: address, walletLinkedAt: now, chainId: 84532, source: 'siwe' },
  ],
  [
    'custodyStatus',
    'GET',
    '/custody',
    {},
    CustodyAWalletStatus,
    { hasWallet: false, walletId: null, walletAddress: null, walletLinkedAt: null },
  ],
  [
    'custodyCreate',
    'POST',
    '/custody',
    { body: CreateCustodyAWalletBody },
    CustodyAWalletCreated,
    { success: true, walletId: 'w', walletAddress: address, blockchain: 'BASE_SEPOLIA', createdAt: now },
  ],
  [
    'custodyBalance',
    'GET',
    '/custody/balance',
    {},
    CustodyAWalletBalance,
    {
      walletId: 'w',
      walletAddress: address,
      blockchain: 'BASE_SEPOLIA',
      network: entry.network,
      nativeBalance: entry.nativeBalance,
      nativeSymbol: entry.nativeSymbol,
      tokens: entry.tokens,
    },
  ],
  ['listContracts', 'GET', '/contracts', {}, ContractDeploymentList, [deployment]],
  [
    'contractForNetwork',
    'GET',
    '/contracts/base-sepolia',
    {},
    ContractForNetwork,
    { address, network: 'base-sepolia', isShared: true, deploymentId: id },
  ],
  [
    'deployContract',
    'POST',
    '/contracts/base-sepolia',
    {},
    ContractDeployed,
    {
      deploymentId: id,
      contractAddress: address,
      transactionHash: `0x${'ab'.repeat(32)}`,
      status: 'active',
      network: 'base-sepolia',
      gasUsed: 1_234_567,
      blockNumber: 42,
    },
  ],
  ['deprecateContract', 'POST', '/contracts/deprecate', {}, ContractDeployment, { ...deployment, status: 'deprecated' }],
];

let app: HttpApp;

beforeAll(async () => {
  app = await createHttpApp({
    service: 'wallet-contracts-test',
    logger: testLogger('wallet-contracts'),
    apiVersion: () => 'v1',
    openapi: { title: 'wallet contracts', version: '1', description: 'test' },
  });
  for (const [operationId, method, url, input, answer, sample] of routes) {
    app.route({
      method,
      url,
      schema: { tags: ['wallets'], summary: operationId, operationId, ...input, response: { 200: SuccessEnvelope(answer) } },
      handler: async (request) => ({ success: true as const, data: sample, meta: { timestamp: now, requestId: request.id } }),
    });
  }
  await app.ready();
});
afterAll(async () => {
  await app?.close();
});

describe('wallet contracts as routes', () => {
  it('compile in Fastify and describe a valid OpenAPI 3.1 document', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as object;
    await SwaggerParser.validate(structuredClone(doc) as never);
  });

  /** A valid request for the routes whose input has required fields. */
  const requests: Record<string, { query?: string; body?: unknown }> = {
    createWalletProviderConfig: { body: { workspaceId, providerType: 'CUSTODY_A', providerName: 'A', config: { apiKey: 'k' } } },
    updateWalletProviderConfig: { body: { providerName: 'x' } },
    checkDuplicate: { query: '?providerType=CUSTODY_A' },
    createAccounts: { body: { accounts: [{ addressFormat: 'ADDRESS_FORMAT_SOLANA', curve: 'CURVE_ED25519', path: "m/44'/501'/0'/0'" }] } },
    linkWallet: { body: { walletAddress: address, signature: '0x1234', message: 'signed' } },
  };

  it.each(routes.map((r) => [r[0], r] as const))('%s serializes a full answer without losing a field', async (name, route) => {
    const [, method, url, , , sample] = route;
    const request = requests[name] ?? {};
    const body = request.body ?? (method === 'GET' ? undefined : {});
    const res = await app.inject({
      method,
      url: `${url}${request.query ?? ''}`,
      ...(body !== undefined ? { payload: body as object } : {}),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual(sample);
  });

  it('refuses bad bodies with a field per problem', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/wpc',
      payload: { workspaceId: 'nope', providerType: 'PLATFORM', providerName: '', config: {}, isGlobal: true },
    });
    expect(res.statusCode).toBe(400);
    const fields = (res.json().error.details.errors as { field: string }[]).map((e) => e.field).sort();
    expect(fields).toEqual(['isGlobal', 'providerName', 'providerType', 'workspaceId']);
    const link = await app.inject({ method: 'POST', url: '/link', payload: { walletAddress: '0x12', signature: 'zz', message: '' } });
    expect((link.json().error.details.errors as { field: string }[]).map((e) => e.field).sort()).toEqual([
      'message',
      'signature',
      'walletAddress',
    ]);
  });
});
