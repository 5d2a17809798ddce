export * from '@holdfast/contracts/escrow';
export {
  type DeployClients,
  type Deployment,
  DeploymentError,
  deployEscrow,
  deployMockUsdc,
  type EscrowConstructorArgs,
} from './deploy.js';
export { onchainIdToUuid, uuidToOnchainId } from './ids.js';
export * from './model.js';
