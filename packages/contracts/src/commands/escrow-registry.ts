import { type Static, Type } from '@sinclair/typebox';
import { DateTime, NetworkSchema, Uuid } from '../common/domain.js';
import { defineCommand } from './define.js';

/*
 * Escrow contracts registered at run time: a workspace's dedicated escrow, deployed by
 * workspace-service, announced to the chain-indexer so that the indexer follows it from its
 * deployment block without a restart (ESCROW_CONTRACTS lists only the shared ones). workspace-service
 * keeps every deployment it has not had acknowledged and sends the command again until it is
 * (at least once); the indexer's answer is the same for a repeat. docs/chain.md, "Contracts
 * registered at run time".
 */

const Address = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'The contract address (any case).' });
const strict = { additionalProperties: false } as const;

export const FollowEscrowContractRequest = Type.Object(
  {
    network: NetworkSchema,
    address: Address,
    deploymentBlock: Type.Integer({ minimum: 0, description: 'The block the contract was deployed in: its events are read from there.' }),
    /** Who the contract belongs to, for the indexer's record and logs. */
    workspaceId: Uuid,
    deploymentId: Uuid,
  },
  strict,
);
export type FollowEscrowContractRequest = Static<typeof FollowEscrowContractRequest>;

export const FollowEscrowContractReply = Type.Object(
  {
    network: NetworkSchema,
    /** EIP-55 checksummed. */
    address: Type.String(),
    deploymentBlock: Type.Integer({ minimum: 0 }),
    /** When the indexer first recorded it (a repeat answers the first registration). */
    registeredAt: DateTime,
    /** True when the contract was already followed (registered before, or in ESCROW_CONTRACTS). */
    alreadyFollowed: Type.Boolean(),
  },
  strict,
);
export type FollowEscrowContractReply = Static<typeof FollowEscrowContractReply>;

export const LookupEscrowContractRequest = Type.Object({ network: NetworkSchema, address: Address }, strict);
export type LookupEscrowContractRequest = Static<typeof LookupEscrowContractRequest>;

export const LookupEscrowContractReply = Type.Object(
  {
    network: NetworkSchema,
    /** EIP-55 checksummed. */
    address: Type.String(),
    /**
     * `configured`: one of the indexer's ESCROW_CONTRACTS; `registered`: deployed by workspace-service
     * and registered with `followContract`; null: neither (not a Holdfast escrow, whatever its code).
     */
    source: Type.Union([Type.Literal('configured'), Type.Literal('registered'), Type.Null()]),
    deploymentBlock: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
    /** The workspace a registered contract was deployed for (null otherwise). */
    workspaceId: Type.Union([Uuid, Type.Null()]),
  },
  strict,
);
export type LookupEscrowContractReply = Static<typeof LookupEscrowContractReply>;

export const INDEXER_COMMANDS = {
  /**
   * Errors: VALIDATION_ERROR (bad payload); CONTRACT_NOT_AVAILABLE (the indexer has no RPC for the
   * network: `details.reason` `no_rpc`). The sender retries both until the operator fixes it.
   */
  followContract: defineCommand(
    'cmd.chain-indexer.contracts.follow',
    FollowEscrowContractRequest,
    FollowEscrowContractReply,
    'Follows an escrow contract from its deployment block on (its past events are published first), from now on and after restarts. Idempotent.',
  ),
  /**
   * Whether an address is one of the escrows Holdfast follows: payments asks it before it takes an
   * `EscrowCreated` log as a fact (docs/security.md, "Only Holdfast's escrow is an escrow"). Read
   * only. Errors: VALIDATION_ERROR (bad payload).
   */
  lookupContract: defineCommand(
    'cmd.chain-indexer.contracts.lookup',
    LookupEscrowContractRequest,
    LookupEscrowContractReply,
    'Answers whether an escrow contract is configured (ESCROW_CONTRACTS) or registered at run time by workspace-service, and for which workspace.',
  ),
} as const;
