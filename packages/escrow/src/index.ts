export * from '@holdfast/contracts/escrow';
export { addressErrors, addressProblem, isSolanaNetwork } from './address.js';
export {
  type AuthorizationWindow,
  authorizationNonce,
  createEscrowWithAuthorizationArgs,
  createEscrowWithPermitArgs,
  type Eip712Domain,
  ESCROW_DOMAIN_NAME,
  ESCROW_DOMAIN_VERSION,
  type EscrowTerms,
  escrowAuthorizationTypedData,
  escrowAuthorizationTypes,
  escrowDomain,
  fundingTokenAbi,
  type PermitSignature,
  permitTypedData,
  readEip712Domain,
  receiveWithAuthorizationTypedData,
  type SignedAuthorization,
  type SignedPermitFunding,
  signAuthorizationFunding,
  signPermitFunding,
  type TransferAuthorization,
  type TypedDataSigner,
  tokenAuthorizationTypes,
  toPermit,
  transferWithAuthorizationTypedData,
} from './authorization.js';
export { evmChain } from './chain.js';
export { type DecodedEvent, decodeEscrowLog, ESCROW_LIFECYCLE_EVENTS, type EscrowLog, UndecodableLogError } from './decode.js';
export {
  type DeployClients,
  type Deployment,
  DeploymentError,
  deployEscrow,
  deployMockUsdc,
  type EscrowConstructorArgs,
} from './deploy.js';
export { type EscrowGenuineness, escrowGenuineness, type NotGenuineReason } from './genuine.js';
export { onchainIdToUuid, uuidToOnchainId } from './ids.js';
export {
  ANVIL_DEV_MNEMONIC,
  type CodeRange,
  type DeploymentRecord,
  ensureLocalContracts,
  escrowContractsEntry,
  isCodeOf,
  LOCAL_CONTRACTS,
  LOCAL_DEPLOYER_INDEX,
  type LocalContracts,
  localDeployerAccount,
  tokenContractsEntry,
  toRecord,
} from './local.js';
export * from './model.js';
