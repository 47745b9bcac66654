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
export { MAX_RETRY_AFTER_MS, nextDelay, parseRetryAfter, parseSchedule } from './retry.schedule';
export { allowListSetting, scheduleSetting } from './settings';
