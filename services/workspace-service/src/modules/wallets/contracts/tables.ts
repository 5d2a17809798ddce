import type { ContractDeploymentStatus, Network } from '@holdfast/contracts';
import { createdAt, optionalCascadingReference, timestamptz, updatedAt } from '@holdfast/db';
import { sql } from 'drizzle-orm';
import { boolean, check, index, jsonb, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { workspaceSchema } from '../../../db/pg-schema.js';
import { workspaces } from '../../workspaces/tables.js';

export interface DeploymentMetadata {
  gasUsed?: number;
  blockNumber?: number;
  deployerAddress?: string;
  factoryVersion?: string | null;
  error?: string;
}

/**
 * Escrow contract deployments: dedicated ones per workspace, and shared ones (no workspace) taken
 * from ESCROW_CONTRACTS. A workspace's rows go with it (ON DELETE CASCADE); its contracts stay on chain
 * and the chain-indexer keeps following them (funds may still be held).
 */
export const contractDeployments = workspaceSchema.table(
  'contract_deployments',
  {
    id: uuid('id').primaryKey(),
    workspaceId: optionalCascadingReference('workspace_id', () => workspaces.id),
    globalTemplateId: text('global_template_id'),
    network: text('network').$type<Network>().notNull(),
    contractType: text('contract_type').$type<'escrow'>().notNull().default('escrow'),
    contractAddress: text('contract_address'),
    factoryAddress: text('factory_address'),
    deploymentTxHash: text('deployment_tx_hash'),
    deployedAt: timestamptz('deployed_at'),
    deployedBy: text('deployed_by'),
    status: text('status').$type<ContractDeploymentStatus>().notNull(),
    isShared: boolean('is_shared').notNull().default(false),
    verified: boolean('verified').notNull().default(false),
    verifiedAt: timestamptz('verified_at'),
    metadata: jsonb('metadata').$type<DeploymentMetadata>().notNull().default({}),
    /** When the chain-indexer acknowledged following this dedicated contract (null: still to announce). */
    indexerRegisteredAt: timestamptz('indexer_registered_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  () => [
    check('contract_deployments_scope_ck', sql`is_shared = (workspace_id is null)`),
    check('contract_deployments_status_ck', sql`status in ('pending', 'active', 'failed', 'deprecated')`),
    // At most one live (pending or active) dedicated contract per workspace, network and type.
    uniqueIndex('contract_deployments_one_live_idx')
      .on(sql`workspace_id`, sql`network`, sql`contract_type`)
      .where(sql`not is_shared and status in ('pending', 'active')`),
    uniqueIndex('contract_deployments_shared_idx').on(sql`network`, sql`lower(contract_address)`).where(sql`is_shared`),
    index('contract_deployments_workspace_idx').on(sql`workspace_id`),
  ],
);
export type ContractDeploymentRow = typeof contractDeployments.$inferSelect;
