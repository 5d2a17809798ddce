import { type Static, Type } from '@sinclair/typebox';
import { StringEnum } from '../common/domain.js';
import { PaymentsTransaction } from './transactions.js';

/*
 * Payments API: one-signature funding through Holdfast's relayer (docs/checkout.md). The payer signs,
 * the relayer submits the escrow's creation and pays the gas.
 */

const strict = { additionalProperties: false } as const;
const Signature = (description: string) =>
  Type.String({
    pattern: '^0x[0-9a-fA-F]{130,}$',
    maxLength: 4098,
    description: `${description} (0x and hex: 65 bytes, or longer for a contract wallet)`,
  });
const UnixSeconds = (description: string) => Type.Integer({ minimum: 0, maximum: 2 ** 40, description: `${description} (unix seconds)` });

/** EIP-3009: the payer's `ReceiveWithAuthorization` for `createEscrowWithAuthorization`. */
export const EscrowAuthorizationFunding = Type.Object(
  {
    kind: Type.Literal('authorization'),
    validAfter: UnixSeconds('The authorization is valid after this instant'),
    validBefore: UnixSeconds('The authorization is valid before this instant'),
    signature: Signature("The payer's signature of ReceiveWithAuthorization in the token's EIP-712 domain"),
  },
  strict,
);

/** EIP-2612: the payer's `Permit` and the escrow's `EscrowAuthorization`, for `createEscrowWithPermit`. */
export const EscrowPermitFunding = Type.Object(
  {
    kind: Type.Literal('permit'),
    deadline: UnixSeconds('The deadline of both the permit and the EscrowAuthorization'),
    permitSignature: Type.String({ pattern: '^0x[0-9a-fA-F]{130}$', description: "The payer's EIP-2612 Permit signature (65 bytes)" }),
    escrowSignature: Signature("The payer's EscrowAuthorization signature in the escrow's EIP-712 domain"),
  },
  strict,
);

/** POST /transactions/{id}/escrow-authorization. */
export const EscrowAuthorizationBody = Type.Union([EscrowAuthorizationFunding, EscrowPermitFunding], {
  $id: 'EscrowAuthorizationBody',
  description:
    "What the payer signed: `authorization` (EIP-3009, USDC) or `permit` (EIP-2612). The terms are the transaction's (its create answer's `escrow`).",
});
export type EscrowAuthorizationBody = Static<typeof EscrowAuthorizationBody>;

export const RELAY_STATUSES = ['submitted', 'mined', 'reverted', 'failed'] as const;

export const Relay = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    status: StringEnum(RELAY_STATUSES, {
      description: '`submitted` (sent, no receipt yet), `mined`, `reverted`, `failed` (never mined: a new authorization may be sent)',
    }),
    txHash: Type.String({
      description: 'The current on-chain transaction (a replacement with higher fees keeps its nonce and changes it)',
    }),
    relayer: Type.String({ description: "The relayer's address (the on-chain transaction's `from`)" }),
    network: Type.String(),
    kind: StringEnum(['authorization', 'permit', 'transfer'] as const),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'Relay' },
);
export type Relay = Static<typeof Relay>;

export const RelayResult = Type.Object({ relay: Relay, transaction: PaymentsTransaction }, { $id: 'RelayResult' });
export type RelayResult = Static<typeof RelayResult>;
