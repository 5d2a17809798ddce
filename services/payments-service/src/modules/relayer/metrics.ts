import type { Sql } from '@holdfast/db';
import { registerCountGauge } from '@holdfast/http-kit';
import { Gauge, type Registry } from 'prom-client';
import type { RelayerChain } from './chain.js';
import type { RelayerRepository } from './repository.js';

/**
 * What an SRE alerts on for the relayer (docs/operations.md): the balance of its key per network
 * (below RELAYER_MIN_BALANCE_WEI /health/ready fails too) and its relays by status (`submitted`
 * growing: the chain is slow or the fees too low; `failed`/`reverted`: a look).
 */
export function registerRelayerMetrics(deps: {
  registry: Registry;
  sql: Sql;
  repository: RelayerRepository;
  relayerChain: RelayerChain;
  minBalanceWei: bigint;
}) {
  const { relayerChain } = deps;
  new Gauge({
    name: 'payments_relayer_balance_wei',
    help: "The relayer key's balance per network, in wei (it pays the gas of relayed escrow fundings)",
    labelNames: ['network', 'address'] as const,
    registers: [deps.registry],
    async collect() {
      this.reset();
      await Promise.all(
        relayerChain.networks().map(async (network) => {
          const account = relayerChain.account(network);
          if (!account) return;
          const balance = await relayerChain.balance(network, account.address).catch(() => null);
          if (balance !== null) this.set({ network, address: account.address }, Number(balance));
        }),
      );
    },
  });
  // The floor beside the balance, so an alert compares the two without repeating the setting.
  new Gauge({
    name: 'payments_relayer_min_balance_wei',
    help: 'RELAYER_MIN_BALANCE_WEI per network: below it /health/ready fails and relays are refused',
    labelNames: ['network'] as const,
    registers: [deps.registry],
    collect() {
      this.reset();
      for (const network of relayerChain.networks()) {
        if (relayerChain.account(network)) this.set({ network }, Number(deps.minBalanceWei));
      }
    },
  });
  registerCountGauge(deps.registry, {
    name: 'payments_relayed_locks',
    help: 'Relayed escrow fundings by status (submitted: waiting for a receipt; mined; reverted; failed)',
    label: 'status',
    counts: () => deps.repository.countByStatus(deps.sql),
  });
}
