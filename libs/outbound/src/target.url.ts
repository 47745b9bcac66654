import { isIpLiteral, type AddressPolicy, type AddressVerdict } from './address.policy';

/** `localhost` and its subdomains (RFC 6761: they resolve to loopback), with or without the final dot. */
const LOCALHOST = /^(.+\.)?localhost\.?$/i;

/**
 * The early, write-time check of a target URL (when a webhook or a channel is saved): an
 * IP-literal host is judged by the policy, a `localhost` / `*.localhost` host is judged as
 * 127.0.0.1, and any other name is allowed here, since the guarded agent judges the addresses it
 * resolves to when it connects (DNS may change in between). Throws a TypeError, as `new URL`
 * does, when `url` is not an absolute URL.
 */
export function checkTargetUrl(policy: AddressPolicy, url: string): AddressVerdict {
  const host = new URL(url).hostname;
  const literal = isIpLiteral(host) ? host : LOCALHOST.test(host) ? '127.0.0.1' : null;
  return literal ? policy.check(literal) : { allowed: true };
}
