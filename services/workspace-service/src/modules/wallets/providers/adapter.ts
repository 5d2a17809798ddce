import {
  AppError,
  type ConnectionTestResult,
  type Network,
  type TokenBalance,
  type WalletAccount,
  type WalletAccountSpec,
  type WalletProviderKind,
} from '@holdfast/contracts';
import type { Hex } from 'viem';

/**
 * One interface for every wallet provider: the built-in HD wallet (PLATFORM) and the custody
 * vendors (CUSTODY_A..D), each speaking its own API behind it. What a "wallet" is differs per
 * provider (docs/wallets.md): a PLATFORM HD wallet, an A wallet set, a B vault, a C wallet, a D
 * project; `walletId` is always that provider's own container id.
 */
export interface WalletProviderAdapter {
  readonly kind: WalletProviderKind;
  readonly capabilities: {
    /** Derives exactly the requested BIP-32 paths (otherwise the provider picks and may not disclose them). */
    choosesPaths: boolean;
  };
  /** Never throws for a vendor problem: the answer says what failed. */
  testConnection(): Promise<ConnectionTestResult>;
  /** A new wallet holding the given accounts; `refId` ties it to our record (a customer id) at the vendor. */
  createWallet(input: CreateWalletInput): Promise<ProviderWallet>;
  createAccounts(input: { walletId: string; accounts: WalletAccountSpec[]; network?: Network | undefined }): Promise<WalletAccount[]>;
  listAccounts(input: { walletId: string }): Promise<WalletAccount[]>;
  /** Balances as the vendor reports them; absent for providers that report none (read the chain instead). */
  getBalances?(input: { walletId: string; network: Network }): Promise<ProviderBalance[]>;
  /** EIP-191 personal_sign for Ethereum accounts, a raw ed25519 signature for Solana ones. */
  signMessage?(input: { walletId: string; address: string; message: string }): Promise<Hex>;
}

export interface CreateWalletInput {
  name: string;
  refId?: string | undefined;
  /** Where the wallet's first address lives, for vendors whose addresses are per blockchain. */
  network?: Network | undefined;
  accounts: WalletAccountSpec[];
  /** Makes a retried creation return the first wallet instead of a second one (vendors that support it). */
  idempotencyKey?: string | undefined;
}

export interface ProviderWallet {
  walletId: string;
  accounts: WalletAccount[];
  createdAt: string;
}

export interface ProviderBalance {
  address: string;
  network: Network;
  nativeBalance: string;
  nativeSymbol: string;
  tokens: TokenBalance[];
}

/** Why a provider call failed, as the details of a WALLET_PROVIDER_ERROR (502) and test-connection answers. */
export const PROVIDER_FAILURES = [
  'unauthorized',
  'timeout',
  'unreachable',
  'address_refused',
  'malformed_response',
  'vendor_error',
  'not_found',
] as const;
export type ProviderFailure = (typeof PROVIDER_FAILURES)[number];

const FAILURE_TEXT: Record<ProviderFailure, string> = {
  unauthorized: 'refused our credentials',
  timeout: 'did not answer in time',
  unreachable: 'could not be reached',
  address_refused: 'is at an address we do not connect to',
  malformed_response: 'answered with something we could not read',
  vendor_error: 'answered with an error',
  not_found: 'does not know the requested wallet',
};

export interface ProviderErrorOptions extends ErrorOptions {
  /** Why the outbound policy refused the connection (`address_refused`): the host, the address, the rule. */
  refusal?: string | undefined;
}

/** A provider that failed. Never carries credentials; `vendorMessage` is the vendor's own short text. */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  readonly refusal: string | undefined;
  constructor(
    readonly provider: WalletProviderKind,
    readonly reason: ProviderFailure,
    readonly vendorStatus?: number,
    readonly vendorMessage?: string,
    options?: ProviderErrorOptions,
  ) {
    super(
      `${provider} ${FAILURE_TEXT[reason]}${vendorStatus ? ` (HTTP ${vendorStatus})` : ''}${vendorMessage ? `: ${vendorMessage}` : ''}${options?.refusal ? ` (${options.refusal})` : ''}`,
      options,
    );
    this.refusal = options?.refusal;
  }

  get details(): Record<string, unknown> {
    return {
      provider: this.provider,
      reason: this.reason,
      ...(this.vendorStatus ? { vendorStatus: this.vendorStatus } : {}),
      ...(this.vendorMessage ? { vendorMessage: this.vendorMessage } : {}),
      ...(this.refusal ? { refusal: this.refusal } : {}),
    };
  }

  toAppError(): AppError {
    return new AppError('WALLET_PROVIDER_ERROR', this.message, this.details, undefined, { cause: this });
  }
}

/** Runs a provider call and turns a ProviderError into the API's WALLET_PROVIDER_ERROR. */
export async function viaProvider<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ProviderError) throw error.toAppError();
    throw error;
  }
}

/** test-connection's answer for a failed call. */
export function failedConnection(error: unknown, base: Record<string, unknown>): ConnectionTestResult {
  if (error instanceof ProviderError) return { success: false, message: error.message, details: { ...base, ...error.details } };
  throw error;
}
