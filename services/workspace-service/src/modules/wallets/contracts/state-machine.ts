import type { ContractDeploymentStatus } from '@holdfast/contracts';

export type DeploymentAction = 'confirm' | 'fail' | 'deprecate';

/**
 * A dedicated deployment: pending while its transaction is mined, then active (used for new
 * transactions) or failed; an active one can be deprecated (kept for the escrows it holds, no longer
 * offered for new ones). Failed and deprecated are final.
 */
const TRANSITIONS: Record<ContractDeploymentStatus, Partial<Record<DeploymentAction, ContractDeploymentStatus>>> = {
  pending: { confirm: 'active', fail: 'failed' },
  active: { deprecate: 'deprecated' },
  failed: {},
  deprecated: {},
};

export function nextStatus(from: ContractDeploymentStatus, action: DeploymentAction): ContractDeploymentStatus | undefined {
  return TRANSITIONS[from][action];
}
