import { randomBytes } from 'node:crypto';
import {
  type AppEnv,
  AppError,
  CHAIN_IDS,
  type CreateCustodyAWalletBody,
  type CustodyANetwork,
  type CustodyAWalletBalance,
  type CustodyAWalletCreated,
  type CustodyAWalletStatus,
  type CustomerWallet,
  type FieldError,
  type LinkWalletBody,
  type Network,
  notFound,
  validationError,
  type WalletBalances,
  type WalletLinkNonce,
  type WalletLinkNonceBody,
  type WalletProviderKind,
} from '@holdfast/contracts';
import type { Logger } from '@holdfast/logging';
import { sha256, tokenHash } from '@holdfast/secrets';
import { BaseError, getAddress, type Hex, HttpRequestError, isAddress, isAddressEqual, RpcRequestError, TimeoutError } from 'viem';
import { createSiweMessage, parseSiweMessage, validateSiweMessage } from 'viem/siwe';
import type { CustomerWalletRow } from '../../customers/index.js';
import type { WorkspaceWalletProviderLookup } from '../accounts/service.js';
import type { BalanceReader } from '../balances/service.js';
import { type ActorContext, type AuditSink, canAccess, WALLET_AUDIT, type WorkspaceAccess } from '../common/audit.js';
import { evmPublicClient, networkOfChainId } from '../common/chains.js';
import type { WalletProviderConfigService } from '../provider-configs/service.js';
import { viaProvider } from '../providers/adapter.js';
import type { CustodyAAdapter } from '../providers/custody-a.js';
import type { PlatformAdapter } from '../providers/platform.js';
import type { CustomerWalletRepository } from './repository.js';

/** What the customer signs: shown by the wallet above the fields. */
export const LINK_STATEMENT = 'Link this wallet to your Holdfast customer account.';

/**
 * The workspace a customer belongs to, or null when there is no such customer. The customers table
 * arrives with the customer accounts, whose module provides this lookup.
 */
export type CustomerLookup = (customerId: string) => Promise<{ workspaceId: string } | null>;

export interface CustomerWalletServiceDeps {
  repository: CustomerWalletRepository;
  findCustomer: CustomerLookup;
  /** EVM networks (CHAIN_RPC_URLS): the chains a message may be bound to, and where signatures are checked. */
  chainRpcUrls: Record<string, string>;
  siwe: { domain: string; uri: string; nonceTtlMs: number };
  rpcTimeoutMs: number;
  configs: WalletProviderConfigService;
  balances: BalanceReader;
  audit: AuditSink;
  appEnv: AppEnv;
  logger: Logger;
  /** `Workspace.walletProvider` (workspace tenancy): the provider auto-created customer wallets use. */
  workspaceWalletProvider?: WorkspaceWalletProviderLookup;
  /** The built-in HD wallet of a workspace (auto-created PLATFORM customer wallets). */
  platform?: (workspaceId: string) => PlatformAdapter;
  /** The clock; tests move it. */
  now?: () => Date;
}

const CUSTODY_A_NETWORK: Record<CustodyANetwork, Network> = {
  BASE_SEPOLIA: 'base-sepolia',
  BASE: 'base',
  ETH_SEPOLIA: 'ethereum-sepolia',
  ETH: 'ethereum',
};

function toCustomerWallet(row: CustomerWalletRow): CustomerWallet {
  return {
    customerId: row.customerId,
    walletAddress: row.walletAddress,
    walletLinkedAt: row.linkedAt.toISOString(),
    chainId: row.chainId,
    source: row.source,
  };
}

/** A UUID-shaped key derived from a name: the same customer always sends the vendor the same idempotency key. */
function derivedUuid(name: string): string {
  const hex = sha256(name);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const HARDENED_LIMIT = 0x80000000;

/**
 * Where a customer's PLATFORM wallet lives in the workspace's HD wallet: account 1' of the Ethereum
 * coin type is reserved for customers (the workspace's own accounts use account 0'), and the two
 * levels under it are 62 bits of SHA-256(customer id). Fixed by the customer id, so a retried
 * creation derives the same address.
 */
export function customerAccountPath(customerId: string): string {
  const digest = sha256(`customer-wallet:${customerId}`, 'buffer');
  const a = digest.readUInt32BE(0) % HARDENED_LIMIT;
  const b = digest.readUInt32BE(4) % HARDENED_LIMIT;
  return `m/44'/60'/1'/${a}'/${b}'`;
}

/** Why no wallet was auto-created for a new customer (the audit entry's `metadata.reason`). */
export type AutoCreateSkipReason = 'no_provider' | 'provider_not_configured' | 'provider_not_supported';

export type AutoCreateOutcome =
  | { outcome: 'created'; provider: WalletProviderKind; walletAddress: string }
  | { outcome: 'already_has_wallet'; walletAddress?: string }
  | { outcome: 'customer_gone' }
  | { outcome: 'skipped'; reason: AutoCreateSkipReason };

/** Acts without a request (the remote task runner): audited for the system. */
const SYSTEM_ACTOR: ActorContext = { actorId: null };

function isRpcFailure(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  return error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError || e instanceof RpcRequestError) !== null;
}

/**
 * A customer's one wallet: linked by signing an EIP-4361 (Sign-In with Ethereum) message, or created
 * at CUSTODY_A. Independent of how the customer authenticated: every function takes the workspace
 * and the customer id the caller vouches for.
 */
export function createCustomerWalletService(deps: CustomerWalletServiceDeps) {
  const { repository } = deps;
  const now = deps.now ?? (() => new Date());
  const acceptedChains = Object.keys(deps.chainRpcUrls)
    .map((n) => CHAIN_IDS[n as Network])
    .filter((id): id is number => id !== undefined);

  /** The customer of this workspace (routes authenticated as the customer: the token names both). */
  async function requireCustomer(workspaceId: string, customerId: string): Promise<void> {
    const customer = await deps.findCustomer(customerId);
    if (customer?.workspaceId !== workspaceId) throw notFound('Customer');
  }

  /**
   * The workspace of a customer an admin names (`/customers/{id}/...`), if the admin may act on it.
   * Another tenant's customers do not exist for the caller: 404, as for an unknown one.
   */
  async function customerWorkspace(customerId: string, access: WorkspaceAccess): Promise<string> {
    const customer = await deps.findCustomer(customerId);
    if (!customer || !canAccess(access, customer.workspaceId)) throw notFound('Customer');
    return customer.workspaceId;
  }

  async function refuseIfLinked(workspaceId: string, customerId: string): Promise<void> {
    if (await repository.findWalletOfCustomer(customerId)) {
      throw new AppError('WALLET_ALREADY_LINKED', 'The customer already has a wallet', { workspaceId });
    }
  }

  function storeConflict(conflict: 'customer_has_wallet' | 'address_taken'): AppError {
    return conflict === 'customer_has_wallet'
      ? new AppError('WALLET_ALREADY_LINKED', 'The customer already has a wallet')
      : new AppError('CONFLICT', 'This wallet is already linked to another customer of the workspace');
  }

  async function custodyA(workspaceId: string) {
    const { adapter } = await deps.configs.usableAdapter(workspaceId, 'CUSTODY_A');
    return adapter as CustodyAAdapter;
  }

  function defaultCustodyANetwork(): CustodyANetwork {
    return deps.appEnv === 'production' ? 'BASE' : 'BASE_SEPOLIA';
  }

  /**
   * Creates the customer's wallet at CUSTODY_A (once: a retry sends the vendor the same idempotency
   * key) and stores it as the customer's wallet, with its audit entry. 400
   * WALLET_PROVIDER_NOT_CONFIGURED, 400 WALLET_ALREADY_LINKED, 502 vendor failure (nothing stored).
   */
  async function provisionCustodyA(
    workspaceId: string,
    customerId: string,
    blockchain: CustodyANetwork,
    action: typeof WALLET_AUDIT.custodyAWalletCreate | typeof WALLET_AUDIT.customerWalletAutoCreate,
    actor: ActorContext,
  ): Promise<CustomerWalletRow> {
    const adapter = await custodyA(workspaceId);
    const wallet = await viaProvider(() =>
      adapter.createWallet({
        name: `holdfast-customer-${customerId}`,
        refId: customerId,
        network: CUSTODY_A_NETWORK[blockchain],
        accounts: [],
        idempotencyKey: derivedUuid(`custody-a-wallet:${workspaceId}:${customerId}`),
      }),
    );
    const address = wallet.accounts[0]?.address;
    if (!address) throw new AppError('WALLET_PROVIDER_ERROR', 'CUSTODY_A created a wallet without an address', { provider: 'CUSTODY_A' });
    return repository.transaction(async (tx) => {
      const inserted = await repository.insertWallet(tx, {
        customerId,
        workspaceId,
        walletAddress: getAddress(address),
        chainId: CHAIN_IDS[CUSTODY_A_NETWORK[blockchain]] ?? null,
        source: 'custody_a',
        providerWalletId: wallet.walletId,
        blockchain,
      });
      if (typeof inserted === 'string') throw storeConflict(inserted);
      await deps.audit(tx, {
        ...action,
        resourceId: customerId,
        workspaceId,
        details: `Created a CUSTODY_A wallet for customer ${customerId}`,
        changes: { walletAddress: { from: null, to: inserted.walletAddress }, walletId: { from: null, to: wallet.walletId } },
        ...(action === WALLET_AUDIT.customerWalletAutoCreate ? { metadata: { customerId, provider: 'CUSTODY_A' } } : {}),
        actor,
      });
      return inserted;
    });
  }

  return {
    /**
     * POST .../customers/auth/wallet-nonce: a single-use nonce bound to this customer, valid
     * SIWE_NONCE_TTL, with the fields the message must carry (and the message itself when the
     * wallet address is given). 400 WALLET_ALREADY_LINKED; 400 for a chain without an RPC.
     */
    issueNonce: async (workspaceId: string, customerId: string, body: WalletLinkNonceBody): Promise<WalletLinkNonce> => {
      await requireCustomer(workspaceId, customerId);
      await refuseIfLinked(workspaceId, customerId);
      const chainId = body.chainId ?? acceptedChains[0];
      if (chainId === undefined) throw new AppError('SERVICE_UNAVAILABLE', 'No EVM network is configured for wallet linking');
      if (!acceptedChains.includes(chainId)) {
        throw validationError([{ field: 'chainId', reason: `must be one of: ${acceptedChains.join(', ')}` }]);
      }
      const nonce = randomBytes(16).toString('hex');
      const issuedAt = now();
      const expirationTime = new Date(issuedAt.getTime() + deps.siwe.nonceTtlMs);
      await repository.insertNonce({ nonceHash: tokenHash(nonce), workspaceId, customerId, chainId, expiresAt: expirationTime });
      const fields = {
        domain: deps.siwe.domain,
        uri: deps.siwe.uri,
        version: '1' as const,
        chainId,
        nonce,
        statement: LINK_STATEMENT,
        issuedAt,
        expirationTime,
      };
      return {
        ...fields,
        issuedAt: issuedAt.toISOString(),
        expirationTime: expirationTime.toISOString(),
        ...(body.walletAddress ? { message: createSiweMessage({ ...fields, address: getAddress(body.walletAddress) }) } : {}),
      };
    },

    /**
     * POST .../customers/auth/link-wallet: verifies the signed EIP-4361 message (domain SIWE_DOMAIN,
     * URI SIWE_URI, a configured chain, this customer's unused unexpired nonce, not expired, signed for
     * walletAddress by an account or a smart-contract wallet: ERC-1271, ERC-6492) and links the
     * wallet. 400 VALIDATION_ERROR naming the field; 400 INVALID_CODE for an unknown, spent or
     * expired nonce; 400 WALLET_ALREADY_LINKED; 409 CONFLICT when another customer has the address;
     * 503 SERVICE_UNAVAILABLE when the chain cannot be asked about a contract wallet.
     */
    linkWallet: async (workspaceId: string, customerId: string, body: LinkWalletBody, actor: ActorContext): Promise<CustomerWallet> => {
      await requireCustomer(workspaceId, customerId);
      if (!isAddress(body.walletAddress, { strict: false })) {
        throw validationError([{ field: 'walletAddress', reason: 'must be an Ethereum address' }]);
      }
      const parsed = parseSiweMessage(body.message);
      if (!parsed.address || !parsed.domain || !parsed.uri || !parsed.version || !parsed.chainId || !parsed.nonce) {
        throw validationError([{ field: 'message', reason: 'is not an EIP-4361 (Sign-In with Ethereum) message' }]);
      }
      const problems: FieldError[] = [];
      if (!isAddressEqual(parsed.address, getAddress(body.walletAddress))) {
        problems.push({ field: 'walletAddress', reason: 'differs from the address in the signed message' });
      }
      if (parsed.domain !== deps.siwe.domain) problems.push({ field: 'message', reason: `must be for the domain ${deps.siwe.domain}` });
      // The URI too (the one the nonce answer gave): a message signed for another site's URI is not a link to this one.
      if (parsed.uri !== deps.siwe.uri) problems.push({ field: 'message', reason: `must be for the URI ${deps.siwe.uri}` });
      const network = networkOfChainId(deps.chainRpcUrls, parsed.chainId);
      if (!network) problems.push({ field: 'message', reason: `must be for one of the chains ${acceptedChains.join(', ')}` });
      if (!validateSiweMessage({ message: parsed, time: now() })) {
        problems.push({ field: 'message', reason: 'has expired or is not valid yet' });
      }
      if (problems.length > 0) throw validationError(problems);

      // The nonce: this customer's, unused, unexpired and issued for the chain the message names.
      const nonceHash = tokenHash(parsed.nonce);
      const nonce = await repository.findNonce(nonceHash);
      if (
        !nonce ||
        nonce.workspaceId !== workspaceId ||
        nonce.customerId !== customerId ||
        nonce.usedAt !== null ||
        nonce.expiresAt.getTime() <= now().getTime()
      ) {
        throw new AppError('INVALID_CODE', 'The nonce is unknown, expired, already used or not yours; ask for a new one');
      }
      if (nonce.chainId !== parsed.chainId) {
        throw validationError([{ field: 'message', reason: `must be for chain ${nonce.chainId}, the chain the nonce was issued for` }]);
      }
      await refuseIfLinked(workspaceId, customerId);

      const client = evmPublicClient(network as Network, deps.chainRpcUrls[network as Network] as string, deps.rpcTimeoutMs);
      let valid: boolean;
      try {
        valid = await client.verifySiweMessage({
          message: body.message,
          signature: body.signature as Hex,
          address: parsed.address,
          domain: deps.siwe.domain,
          nonce: parsed.nonce,
          time: now(),
        });
      } catch (error) {
        if (isRpcFailure(error)) {
          deps.logger.warn({ err: error, network }, 'signature verification could not reach the chain');
          throw new AppError('SERVICE_UNAVAILABLE', 'The chain could not be reached to verify the signature; try again');
        }
        valid = false;
      }
      if (!valid) {
        // viem answers false, not an error, when a contract wallet could not be asked: tell the two apart.
        const reachable = await client.getChainId().then(
          () => true,
          () => false,
        );
        if (!reachable) {
          deps.logger.warn({ network }, 'signature verification could not reach the chain');
          throw new AppError('SERVICE_UNAVAILABLE', 'The chain could not be reached to verify the signature; try again');
        }
        throw validationError([{ field: 'signature', reason: 'does not prove ownership of walletAddress' }]);
      }

      const row = await repository.transaction(async (tx) => {
        if (!(await repository.consumeNonce(tx, nonceHash, workspaceId, customerId))) {
          throw new AppError('INVALID_CODE', 'The nonce is unknown, expired, already used or not yours; ask for a new one');
        }
        const inserted = await repository.insertWallet(tx, {
          customerId,
          workspaceId,
          walletAddress: getAddress(parsed.address as string),
          chainId: parsed.chainId as number,
          source: 'siwe',
        });
        if (typeof inserted === 'string') throw storeConflict(inserted);
        await deps.audit(tx, {
          ...WALLET_AUDIT.customerWalletLink,
          resourceId: customerId,
          workspaceId,
          details: `Customer linked wallet ${inserted.walletAddress}`,
          metadata: { customerId },
          changes: { walletAddress: { from: null, to: inserted.walletAddress }, chainId: { from: null, to: inserted.chainId } },
          actor,
        });
        return inserted;
      });
      return toCustomerWallet(row);
    },

    /** The customer's wallet for the customer record and `auth/me` (`walletAddress`, `walletLinkedAt`), or null. */
    getWallet: async (workspaceId: string, customerId: string): Promise<CustomerWallet | null> => {
      const row = await repository.findWallet(workspaceId, customerId);
      return row ? toCustomerWallet(row) : null;
    },

    /** Balances of the customer's wallet on every configured network; 404 when it has none. */
    getWalletBalances: async (workspaceId: string, customerId: string): Promise<WalletBalances> => {
      const row = await repository.findWallet(workspaceId, customerId);
      if (!row) throw new AppError('NOT_FOUND', 'The customer has no wallet');
      return deps.balances.read([{ address: row.walletAddress, addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }]);
    },

    /**
     * GET /customers/{id}/custody-a-wallet: `{hasWallet, walletId, walletAddress, walletLinkedAt}`;
     * 404 for an unknown customer or one of a workspace outside `access`.
     */
    getCustodyAWallet: async (customerId: string, access: WorkspaceAccess): Promise<CustodyAWalletStatus> => {
      const workspaceId = await customerWorkspace(customerId, access);
      const row = await repository.findWallet(workspaceId, customerId);
      if (row?.source !== 'custody_a') return { hasWallet: false, walletId: null, walletAddress: null, walletLinkedAt: null };
      return {
        hasWallet: true,
        walletId: row.providerWalletId,
        walletAddress: row.walletAddress,
        walletLinkedAt: row.linkedAt.toISOString(),
      };
    },

    /**
     * POST /customers/{id}/custody-a-wallet: creates the customer's wallet at CUSTODY_A (once: a retry
     * sends the vendor the same idempotency key) and makes it the customer's wallet. 201. 400
     * WALLET_PROVIDER_NOT_CONFIGURED, 400 WALLET_ALREADY_LINKED, 404 for a customer unknown or
     * outside `access`, 502 vendor failure.
     */
    createCustodyAWallet: async (
      customerId: string,
      body: CreateCustodyAWalletBody,
      access: WorkspaceAccess,
      actor: ActorContext,
    ): Promise<CustodyAWalletCreated> => {
      const workspaceId = await customerWorkspace(customerId, access);
      await refuseIfLinked(workspaceId, customerId);
      const blockchain: CustodyANetwork = body.network ?? defaultCustodyANetwork();
      const row = await provisionCustodyA(workspaceId, customerId, blockchain, WALLET_AUDIT.custodyAWalletCreate, actor);
      return {
        success: true,
        walletId: row.providerWalletId as string,
        walletAddress: row.walletAddress,
        blockchain,
        createdAt: row.linkedAt.toISOString(),
      };
    },

    /**
     * The `autoCreateCustomerWallets` step of a new customer (run by the remote task
     * `customer-wallets.auto-create`, never inside the customer's transaction): gives the customer a
     * wallet with the workspace's wallet provider, once. PLATFORM derives an account of the
     * workspace's HD wallet at a path fixed by the customer id; CUSTODY_A creates one as
     * POST /customers/{id}/custody-a-wallet does (same idempotency key). Answers what happened; a
     * provider that fails throws (502 WALLET_PROVIDER_ERROR: the task is retried, and a retry
     * creates the same wallet, never a second one).
     */
    autoCreate: async (workspaceId: string, customerId: string): Promise<AutoCreateOutcome> => {
      const customer = await deps.findCustomer(customerId);
      if (customer?.workspaceId !== workspaceId) return { outcome: 'customer_gone' };
      const existing = await repository.findWalletOfCustomer(customerId);
      if (existing) return { outcome: 'already_has_wallet', walletAddress: existing.walletAddress };
      if (!deps.workspaceWalletProvider || !deps.platform) throw new Error('customer wallet auto-creation is not wired');
      const provider = await deps.workspaceWalletProvider(workspaceId);
      const skip = async (reason: AutoCreateSkipReason, message: string): Promise<AutoCreateOutcome> => {
        await repository.transaction((tx) =>
          deps.audit(tx, {
            ...WALLET_AUDIT.customerWalletAutoCreateSkip,
            resourceId: customerId,
            workspaceId,
            details: `No wallet created for customer ${customerId}: ${message}`,
            changes: {},
            metadata: { customerId, reason, provider },
            actor: SYSTEM_ACTOR,
          }),
        );
        deps.logger.warn({ workspaceId, customerId, reason, provider }, 'customer wallet not auto-created');
        return { outcome: 'skipped', reason };
      };
      if (!provider) return skip('no_provider', 'the workspace has no wallet provider (walletProvider)');
      if (provider === 'CUSTODY_A') {
        let row: CustomerWalletRow;
        try {
          row = await provisionCustodyA(
            workspaceId,
            customerId,
            defaultCustodyANetwork(),
            WALLET_AUDIT.customerWalletAutoCreate,
            SYSTEM_ACTOR,
          );
        } catch (error) {
          if (error instanceof AppError && error.code === 'WALLET_PROVIDER_NOT_CONFIGURED') {
            return skip('provider_not_configured', 'the workspace has no usable CUSTODY_A config');
          }
          if (error instanceof AppError && error.code === 'WALLET_ALREADY_LINKED') return { outcome: 'already_has_wallet' };
          throw error;
        }
        return { outcome: 'created', provider, walletAddress: row.walletAddress };
      }
      if (provider !== 'PLATFORM') return skip('provider_not_supported', `${provider} customer wallets are not created automatically`);
      const platform = deps.platform(workspaceId);
      const { walletId } = await platform.ensureWallet();
      const [account] = await platform.createAccounts({
        walletId,
        accounts: [{ addressFormat: 'ADDRESS_FORMAT_ETHEREUM', curve: 'CURVE_SECP256K1', path: customerAccountPath(customerId) }],
      });
      if (!account) throw new Error('PLATFORM derived no account');
      const row = await repository.transaction(async (tx) => {
        const inserted = await repository.insertWallet(tx, {
          customerId,
          workspaceId,
          walletAddress: getAddress(account.address),
          chainId: null,
          source: 'platform',
          providerWalletId: walletId,
        });
        if (typeof inserted === 'string') return inserted;
        await deps.audit(tx, {
          ...WALLET_AUDIT.customerWalletAutoCreate,
          resourceId: customerId,
          workspaceId,
          details: `Created a PLATFORM wallet for customer ${customerId}`,
          changes: { walletAddress: { from: null, to: inserted.walletAddress } },
          metadata: { customerId, provider, path: account.path },
          actor: SYSTEM_ACTOR,
        });
        return inserted;
      });
      // The customer linked a wallet meanwhile (or the address is taken, which a derived path cannot be).
      if (row === 'customer_has_wallet') return { outcome: 'already_has_wallet' };
      if (row === 'address_taken') throw new AppError('CONFLICT', 'The derived address belongs to another customer of the workspace');
      return { outcome: 'created', provider, walletAddress: row.walletAddress };
    },

    /** GET /customers/{id}/custody-a-wallet/balance: CUSTODY_A's own balance report; 404 without one (or outside `access`); 502. */
    getCustodyAWalletBalance: async (customerId: string, access: WorkspaceAccess): Promise<CustodyAWalletBalance> => {
      const workspaceId = await customerWorkspace(customerId, access);
      const row = await repository.findWallet(workspaceId, customerId);
      if (row?.source !== 'custody_a' || !row.providerWalletId || !row.blockchain) {
        throw new AppError('NOT_FOUND', 'The customer has no CUSTODY_A wallet');
      }
      const blockchain = row.blockchain as CustodyANetwork;
      const walletId = row.providerWalletId;
      const adapter = await custodyA(workspaceId);
      const network = CUSTODY_A_NETWORK[blockchain];
      const [balance] = await viaProvider(async () => (await adapter.getBalances?.({ walletId, network })) ?? []);
      return {
        walletId,
        walletAddress: row.walletAddress,
        blockchain,
        network,
        nativeBalance: balance?.nativeBalance ?? '0',
        nativeSymbol: balance?.nativeSymbol ?? 'ETH',
        tokens: balance?.tokens ?? [],
      };
    },
  };
}
export type CustomerWalletService = ReturnType<typeof createCustomerWalletService>;
