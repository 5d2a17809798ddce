/**
 * One-signature escrow funding: what a payer signs so that anyone (a relayer paying the gas) can create
 * the escrow for them, and nothing else.
 *
 * - EIP-3009 (USDC): the payer signs the token's `ReceiveWithAuthorization` with the escrow as `to` and
 *   a nonce derived from every escrow term (`authorizationNonce`); the relayer calls
 *   `createEscrowWithAuthorization`. Changing any term changes the nonce and the signature no longer
 *   verifies; only the escrow may submit it (`receiveWithAuthorization` requires msg.sender == to).
 * - EIP-2612 (tokens without EIP-3009): the payer signs the token's `Permit` for the escrow and the
 *   escrow's own `EscrowAuthorization` of the terms; the relayer calls `createEscrowWithPermit`.
 *
 * A token's EIP-712 domain is read from the token (`eip712Domain`, EIP-5267), never assumed: USDC's
 * domain name differs between deployments ("USDC" on Base Sepolia, "USD Coin" on Base).
 */
import {
  type Address,
  type Client,
  encodeAbiParameters,
  getAddress,
  type Hex,
  keccak256,
  type LocalAccount,
  parseAbi,
  parseSignature,
  type TypedDataDomain,
} from 'viem';
import { getChainId, getEip712Domain, readContract } from 'viem/actions';

/** The terms of one escrow, exactly as `createEscrow` records them, with the payer as `sender`. */
export interface EscrowTerms {
  /** The on-chain id (`uuidToOnchainId`). */
  id: Hex;
  /** The payer: signs, and is recorded as the escrow's sender. */
  sender: Address;
  receiver: Address;
  token: Address;
  /** In the token's smallest units. */
  amount: bigint;
  attester: Address;
  /** Unix seconds (a past value means no hold). */
  holdDeadline: bigint;
}

/** The token functions a relayer touches (USDC's FiatToken v2.2 signatures; `permit` is EIP-2612). */
export const fundingTokenAbi = parseAbi([
  'function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'function cancelAuthorization(address authorizer, bytes32 nonce, bytes signature)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)',
  'function nonces(address owner) view returns (uint256)',
  'function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)',
]);

const authorizationFields = [
  { name: 'from', type: 'address' },
  { name: 'to', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'validAfter', type: 'uint256' },
  { name: 'validBefore', type: 'uint256' },
  { name: 'nonce', type: 'bytes32' },
] as const;

/** EIP-3009 and EIP-2612 message types (as USDC defines them). */
export const tokenAuthorizationTypes = {
  TransferWithAuthorization: authorizationFields,
  ReceiveWithAuthorization: authorizationFields,
  CancelAuthorization: [
    { name: 'authorizer', type: 'address' },
    { name: 'nonce', type: 'bytes32' },
  ],
  Permit: [
    { name: 'owner', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

/** The escrow's own message of the permit path (HoldfastEscrow's ESCROW_AUTHORIZATION_TYPEHASH). */
export const escrowAuthorizationTypes = {
  EscrowAuthorization: [
    { name: 'id', type: 'bytes32' },
    { name: 'sender', type: 'address' },
    { name: 'receiver', type: 'address' },
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
    { name: 'attester', type: 'address' },
    { name: 'holdDeadline', type: 'uint64' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

/** HoldfastEscrow's EIP-712 domain name and version (also answered by its `eip712Domain()`). */
export const ESCROW_DOMAIN_NAME = 'HoldfastEscrow';
export const ESCROW_DOMAIN_VERSION = '1';

/** An EIP-712 domain with the fields a contract declares (no others: each field changes the hash). */
export type Eip712Domain = TypedDataDomain;

/**
 * The EIP-712 domain a contract declares through EIP-5267 `eip712Domain()`, holding only the fields its
 * bitmap names (a zero `salt` included by mistake would make every signature fail).
 */
export async function readEip712Domain(client: Client, address: Address): Promise<Eip712Domain> {
  const { domain, fields, extensions } = await getEip712Domain(client, { address });
  if (extensions.length > 0) throw new Error(`EIP-712 domain of ${address} uses extensions, which are not supported`);
  const bits = Number.parseInt(fields.slice(2), 16);
  const result: Eip712Domain = {};
  if (bits & 0x01) result.name = domain.name;
  if (bits & 0x02) result.version = domain.version;
  if (bits & 0x04) result.chainId = Number(domain.chainId);
  if (bits & 0x08) result.verifyingContract = getAddress(domain.verifyingContract);
  if (bits & 0x10) result.salt = domain.salt;
  return result;
}

/**
 * The EIP-3009 nonce of an escrow's funding: keccak256(abi.encode(chainId, escrow, id, sender, receiver,
 * token, amount, attester, holdDeadline)), as HoldfastEscrow's `authorizationNonce` computes it.
 */
export function authorizationNonce(chainId: number | bigint, escrow: Address, terms: EscrowTerms): Hex {
  return keccak256(
    encodeAbiParameters(
      [
        { type: 'uint256' },
        { type: 'address' },
        { type: 'bytes32' },
        { type: 'address' },
        { type: 'address' },
        { type: 'address' },
        { type: 'uint256' },
        { type: 'address' },
        { type: 'uint64' },
      ],
      [BigInt(chainId), escrow, terms.id, terms.sender, terms.receiver, terms.token, terms.amount, terms.attester, terms.holdDeadline],
    ),
  );
}

/** The window of an EIP-3009 authorization: valid when validAfter < block.timestamp < validBefore. */
export interface AuthorizationWindow {
  validAfter: bigint;
  validBefore: bigint;
}

/** The `ReceiveWithAuthorization` the payer signs to fund `terms` in `escrow` (token domain as read from the token). */
export function receiveWithAuthorizationTypedData(args: {
  tokenDomain: Eip712Domain;
  chainId: number | bigint;
  escrow: Address;
  terms: EscrowTerms;
  window: AuthorizationWindow;
}) {
  const { tokenDomain, chainId, escrow, terms, window } = args;
  return {
    domain: tokenDomain,
    types: { ReceiveWithAuthorization: tokenAuthorizationTypes.ReceiveWithAuthorization },
    primaryType: 'ReceiveWithAuthorization',
    message: {
      from: terms.sender,
      to: escrow,
      value: terms.amount,
      validAfter: window.validAfter,
      validBefore: window.validBefore,
      nonce: authorizationNonce(chainId, escrow, terms),
    },
  } as const;
}

/** An EIP-3009 authorization as signed (x402's `exact` payload carries it): a transfer of `value` from `from` to `to`. */
export interface TransferAuthorization {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
}

/** The `TransferWithAuthorization` a payer signs to pay `to` directly (x402 `exact`), in the token's domain. */
export function transferWithAuthorizationTypedData(args: { tokenDomain: Eip712Domain; authorization: TransferAuthorization }) {
  return {
    domain: args.tokenDomain,
    types: { TransferWithAuthorization: tokenAuthorizationTypes.TransferWithAuthorization },
    primaryType: 'TransferWithAuthorization',
    message: {
      from: args.authorization.from,
      to: args.authorization.to,
      value: args.authorization.value,
      validAfter: args.authorization.validAfter,
      validBefore: args.authorization.validBefore,
      nonce: args.authorization.nonce,
    },
  } as const;
}

/** The escrow's domain (what its `eip712Domain()` answers). */
export function escrowDomain(chainId: number | bigint, escrow: Address): Eip712Domain {
  return { name: ESCROW_DOMAIN_NAME, version: ESCROW_DOMAIN_VERSION, chainId: Number(chainId), verifyingContract: getAddress(escrow) };
}

/** The `EscrowAuthorization` the payer signs for the permit path; `deadline` is the permit's deadline too. */
export function escrowAuthorizationTypedData(args: { chainId: number | bigint; escrow: Address; terms: EscrowTerms; deadline: bigint }) {
  const { chainId, escrow, terms, deadline } = args;
  return {
    domain: escrowDomain(chainId, escrow),
    types: escrowAuthorizationTypes,
    primaryType: 'EscrowAuthorization',
    message: { ...terms, deadline },
  } as const;
}

/** The EIP-2612 `Permit` letting the escrow take `terms.amount` from the payer. */
export function permitTypedData(args: { tokenDomain: Eip712Domain; escrow: Address; terms: EscrowTerms; nonce: bigint; deadline: bigint }) {
  const { tokenDomain, escrow, terms, nonce, deadline } = args;
  return {
    domain: tokenDomain,
    types: { Permit: tokenAuthorizationTypes.Permit },
    primaryType: 'Permit',
    message: { owner: terms.sender, spender: escrow, value: terms.amount, nonce, deadline },
  } as const;
}

/** A permit as `createEscrowWithPermit` takes it. */
export interface PermitSignature {
  deadline: bigint;
  v: number;
  r: Hex;
  s: Hex;
}

/** Splits a 65-byte signature into the permit tuple. */
export function toPermit(deadline: bigint, signature: Hex): PermitSignature {
  const { r, s, v, yParity } = parseSignature(signature);
  return { deadline, v: v !== undefined ? Number(v) : yParity + 27, r, s };
}

/** What a signer needs: a viem local account (an EOA key), or anything that signs typed data the same way. */
export type TypedDataSigner = Pick<LocalAccount, 'signTypedData'>;

/** A signed EIP-3009 funding, ready for `createEscrowWithAuthorization`. */
export interface SignedAuthorization {
  terms: EscrowTerms;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
  signature: Hex;
}

/**
 * Signs the EIP-3009 funding of `terms` in `escrow` with `signer` (the payer, `terms.sender`), reading
 * the chain id and the token's domain from the chain.
 */
export async function signAuthorizationFunding(args: {
  client: Client;
  signer: TypedDataSigner;
  escrow: Address;
  terms: EscrowTerms;
  window: AuthorizationWindow;
}): Promise<SignedAuthorization> {
  const { client, signer, escrow, terms, window } = args;
  const [chainId, tokenDomain] = await Promise.all([getChainId(client), readEip712Domain(client, terms.token)]);
  const typedData = receiveWithAuthorizationTypedData({ tokenDomain, chainId, escrow, terms, window });
  const signature = await signer.signTypedData(typedData);
  return { terms, ...window, nonce: typedData.message.nonce, signature };
}

/** `createEscrowWithAuthorization`'s arguments, in order. */
export function createEscrowWithAuthorizationArgs(signed: SignedAuthorization) {
  const { id, sender, receiver, token, amount, attester, holdDeadline } = signed.terms;
  return [id, sender, receiver, token, amount, attester, holdDeadline, signed.validAfter, signed.validBefore, signed.signature] as const;
}

/** A signed EIP-2612 funding, ready for `createEscrowWithPermit`. */
export interface SignedPermitFunding {
  terms: EscrowTerms;
  permit: PermitSignature;
  /** The payer's `EscrowAuthorization` signature (ECDSA, or what its ERC-1271 wallet accepts). */
  signature: Hex;
}

/**
 * Signs the EIP-2612 funding of `terms` in `escrow`: the token's permit (with the payer's current permit
 * nonce) and the escrow's `EscrowAuthorization`, both valid until `deadline` (unix seconds).
 */
export async function signPermitFunding(args: {
  client: Client;
  signer: TypedDataSigner;
  escrow: Address;
  terms: EscrowTerms;
  deadline: bigint;
}): Promise<SignedPermitFunding> {
  const { client, signer, escrow, terms, deadline } = args;
  const [chainId, tokenDomain, nonce] = await Promise.all([
    getChainId(client),
    readEip712Domain(client, terms.token),
    readContract(client, { address: terms.token, abi: fundingTokenAbi, functionName: 'nonces', args: [terms.sender] }),
  ]);
  const permitSignature = await signer.signTypedData(permitTypedData({ tokenDomain, escrow, terms, nonce, deadline }));
  const signature = await signer.signTypedData(escrowAuthorizationTypedData({ chainId, escrow, terms, deadline }));
  return { terms, permit: toPermit(deadline, permitSignature), signature };
}

/** `createEscrowWithPermit`'s arguments, in order. */
export function createEscrowWithPermitArgs(signed: SignedPermitFunding) {
  const { id, sender, receiver, token, amount, attester, holdDeadline } = signed.terms;
  return [id, sender, receiver, token, amount, attester, holdDeadline, signed.permit, signed.signature] as const;
}
