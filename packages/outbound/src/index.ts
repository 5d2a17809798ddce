export { type AddressAllowList, allowListOf, nonPublicReason, whitelistEntryProblem } from './addresses.js';
export {
  createOutboundPolicy,
  errorCauses,
  type GuardOptions,
  type OutboundPolicy,
  type OutboundPolicyOptions,
  OutboundRefusedError,
  publicOnlyIn,
  type ResolvedAddress,
  type Resolver,
  refusalIn,
  systemResolver,
  tableResolver,
  type UrlRules,
} from './policy.js';
