import {
  AppError,
  type CreateWalletAccountsBody,
  type CustodyProviderType,
  validationError,
  type WalletAccount,
  type WalletAccounts,
  type WalletBalances,
  type WalletProviderKind,
} from '@holdfast/contracts';
import type { BalanceReader } from '../balances/service.js';
import { type ActorContext, type AuditSink, WALLET_AUDIT } from '../common/audit.js';
import type { Tx } from '../provider-configs/repository.js';
import type { WalletProviderConfigService } from '../provider-configs/service.js';
import { ProviderError, viaProvider, type WalletProviderAdapter } from '../providers/adapter.js';
import { specProblems } from '../providers/hd.js';
import type { PlatformAdapter } from '../providers/platform.js';

/**
 * The wallet provider a workspace chose (`Workspace.walletProvider`), or null when it chose none.
 * Workspace tenancy owns the workspaces table: it provides this lookup when the routes are wired.
 */
export type WorkspaceWalletProviderLookup = (workspaceId: string) => Promise<WalletProviderKind | null>;

export interface WalletAccountServiceDeps {
  workspaceWalletProvider: WorkspaceWalletProviderLookup;
  configs: WalletProviderConfigService;
  /** The built-in HD wallet of a workspace. */
  platform: (workspaceId: string) => PlatformAdapter;
  balances: BalanceReader;
  audit: AuditSink;
  /** A transaction on the service's database (the audit entry and the recorded wallet commit together). */
  transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
}

interface ResolvedProvider {
  kind: WalletProviderKind;
  adapter: WalletProviderAdapter;
  /** The container the workspace's accounts live in, when it exists yet. */
  walletId: string | null;
  /** For custody providers: the config whose wallet the accounts live in. */
  configId: string | null;
}

const NONE_YET = 'No accounts yet: create them with POST /workspaces/{id}/wallet-accounts';

/**
 * A workspace's own wallet accounts (where its treasury addresses live) through its provider, and
 * their balances. GET/POST /workspaces/{id}/wallet-accounts, GET /workspaces/{id}/wallet-balances.
 */
export function createWalletAccountService(deps: WalletAccountServiceDeps) {
  async function resolve(workspaceId: string): Promise<ResolvedProvider> {
    const kind = await deps.workspaceWalletProvider(workspaceId);
    if (!kind)
      throw new AppError('WALLET_PROVIDER_NOT_CONFIGURED', 'The workspace has no wallet provider; set walletProvider on the workspace');
    if (kind === 'PLATFORM') {
      const adapter = deps.platform(workspaceId);
      const wallet = await adapter.findWallet();
      return { kind, adapter, walletId: wallet?.walletId ?? null, configId: null };
    }
    const { config, adapter } = await deps.configs.usableAdapter(workspaceId, kind as CustodyProviderType);
    // CUSTODY_A keeps a workspace's addresses in its wallet set; the others in the wallet recorded on the config.
    const walletId = config.defaultWalletId ?? (kind === 'CUSTODY_A' ? config.walletSetId : null);
    return { kind, adapter, walletId, configId: config.id };
  }

  return {
    /** GET /workspaces/{id}/wallet-accounts: `{accounts, message}`; 400 WALLET_PROVIDER_NOT_CONFIGURED; 502 when the vendor fails. */
    listAccounts: async (workspaceId: string): Promise<WalletAccounts> => {
      const provider = await resolve(workspaceId);
      if (!provider.walletId) return { accounts: [], message: NONE_YET };
      const walletId = provider.walletId;
      const accounts = await viaProvider(() => provider.adapter.listAccounts({ walletId }));
      return { accounts, message: accounts.length === 0 ? NONE_YET : `${accounts.length} account(s) at ${provider.kind}` };
    },

    /**
     * POST /workspaces/{id}/wallet-accounts: derives (PLATFORM, CUSTODY_C) or asks for (CUSTODY_A, B, D:
     * the vendor picks the path) one account per spec. Answers the accounts created. 400 for a
     * combination or path that cannot be derived, or no provider; 502 when the vendor fails.
     */
    createAccounts: async (workspaceId: string, body: CreateWalletAccountsBody, actor: ActorContext): Promise<WalletAccounts> => {
      const problems = body.accounts.flatMap((spec, i) => specProblems(spec, `accounts.${i}`));
      if (problems.length > 0) throw validationError(problems);
      const provider = await resolve(workspaceId);
      let accounts: WalletAccount[];
      let walletId: string;
      let newWallet = false;
      if (provider.kind === 'PLATFORM') {
        const platform = provider.adapter as PlatformAdapter;
        ({ walletId } = await platform.ensureWallet());
        accounts = await platform.createAccounts({ walletId, accounts: body.accounts });
      } else if (provider.walletId) {
        walletId = provider.walletId;
        const existing = walletId;
        accounts = await viaProvider(() => provider.adapter.createAccounts({ walletId: existing, accounts: body.accounts }));
      } else {
        const wallet = await viaProvider(() =>
          provider.adapter.createWallet({ name: `holdfast-workspace-${workspaceId}`, accounts: body.accounts }),
        );
        walletId = wallet.walletId;
        newWallet = true;
        accounts = wallet.accounts;
      }
      // One entry for the act; a custody wallet created on the way is recorded on its config with it.
      await deps.transaction(async (tx) => {
        const recorded = newWallet ? await deps.configs.recordDefaultWallet(tx, provider.configId as string, walletId) : {};
        await deps.audit(tx, {
          ...WALLET_AUDIT.accountsCreate,
          resourceId: walletId,
          workspaceId,
          details: `Created ${accounts.length} account(s) at ${provider.kind}`,
          changes: {
            accounts: { from: null, to: accounts.map((a) => ({ address: a.address, addressFormat: a.addressFormat, path: a.path })) },
          },
          actor,
          metadata: {
            provider: provider.kind,
            ...(Object.keys(recorded).length > 0 ? { walletProviderConfigId: provider.configId, defaultWalletId: walletId } : {}),
          },
        });
      });
      const picked = provider.adapter.capabilities.choosesPaths ? '' : `; ${provider.kind} chose the derivation`;
      return { accounts, message: `Created ${accounts.length} account(s) at ${provider.kind}${picked}` };
    },

    /**
     * GET /workspaces/{id}/wallet-balances: every account's balances on every configured network.
     * Never fails for a chain's or a vendor's sake: those become `warnings`. 400 without a provider.
     */
    getBalances: async (workspaceId: string): Promise<WalletBalances> => {
      const provider = await resolve(workspaceId);
      if (!provider.walletId) return { balances: [], warnings: [] };
      const walletId = provider.walletId;
      let accounts: WalletAccount[];
      try {
        accounts = await provider.adapter.listAccounts({ walletId });
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        return { balances: [], warnings: [{ code: 'PROVIDER_ERROR', message: error.message, provider: provider.kind }] };
      }
      return deps.balances.read(accounts);
    },
  };
}
export type WalletAccountService = ReturnType<typeof createWalletAccountService>;
