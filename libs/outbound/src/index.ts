export {
  AddressPolicy,
  isIpLiteral,
  parseAllowList,
  type AddressPolicyOptions,
  type AddressVerdict,
  type AllowedRange,
} from './address.policy';
export {
  BLOCKED_CODE,
  BlockedTargetError,
  createGuardedAgent,
  guardedLookup,
  isBlockedError,
  type GuardedAgentOptions,
} from './guarded.agent';
export { checkTargetUrl } from './target.url';
