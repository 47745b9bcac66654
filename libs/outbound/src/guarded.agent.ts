import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { isIpLiteral, type AddressPolicy } from './address.policy';

/** Error code of a connection refused by the SSRF guard. */
export const BLOCKED_CODE = 'ERR_OUTBOUND_TARGET_BLOCKED';

/** A target the policy refuses (private, loopback, link-local... and not allowed). */
export class BlockedTargetError extends Error {
  override readonly name = 'BlockedTargetError';
  readonly code = BLOCKED_CODE;
}

/** Whether an error (or its cause chain) is a refusal of the SSRF guard. */
export function isBlockedError(err: unknown): err is Error {
  for (
    let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 5;
    e = e.cause as typeof e, depth++
  ) {
    if (e.code === BLOCKED_CODE) return true;
  }
  return false;
}

/** How the guarded agent connects. */
export interface GuardedAgentOptions {
  policy: AddressPolicy;
  /** Sockets kept per origin. Default 128. */
  connections?: number;
  /** Idle keep-alive sockets close after this. Default 4 s. */
  keepAliveTimeoutMs?: number;
  connectTimeoutMs?: number;
  /** Name resolution (tests give a fake resolver to play DNS rebinding); default dns.lookup. */
  lookup?: typeof dnsLookup;
}

/**
 * A lookup that resolves every address of a name and refuses the name when any of them is not
 * allowed, so the connection can only go to an address that was checked.
 */
export function guardedLookup(policy: AddressPolicy, resolve: typeof dnsLookup = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { family: options.family, hints: options.hints, all: true }, (err, result) => {
      if (err) return callback(err, '', 0);
      const addresses = result as unknown as LookupAddress[];
      if (addresses.length === 0)
        return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      for (const a of addresses) {
        const verdict = policy.check(a.address);
        if (!verdict.allowed)
          return callback(new BlockedTargetError(`${hostname} resolves to ${verdict.reason}`), '', 0);
      }
      if ((options as { all?: boolean }).all)
        (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/**
 * An undici Agent (keep-alive, per-origin pool) that connects only where the policy allows:
 * IP literals are judged before connecting, names through the guarded lookup, and the address
 * actually connected to is judged again before the socket is used, so DNS rebinding between a
 * check and the connect has no gap.
 */
export function createGuardedAgent(opts: GuardedAgentOptions): Agent {
  const { policy } = opts;
  const base = buildConnector({ lookup: guardedLookup(policy, opts.lookup), timeout: opts.connectTimeoutMs ?? 10_000 });
  const connect: buildConnector.connector = (options, callback) => {
    if (isIpLiteral(options.hostname)) {
      const verdict = policy.check(options.hostname);
      if (!verdict.allowed) return callback(new BlockedTargetError(verdict.reason), null);
    }
    base(options, (err, socket) => {
      if (err || !socket) return callback(err ?? new Error('no socket'), null);
      const remote = socket.remoteAddress;
      const verdict = remote
        ? policy.check(remote)
        : ({ allowed: false, reason: 'the socket has no remote address' } as const);
      if (!verdict.allowed) {
        socket.destroy();
        return callback(new BlockedTargetError(verdict.reason), null);
      }
      callback(null, socket);
    });
  };
  return new Agent({
    connect,
    connections: opts.connections ?? 128,
    keepAliveTimeout: opts.keepAliveTimeoutMs ?? 4_000,
  });
}
