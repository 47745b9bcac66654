import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** One range the operator allows although it is not public (an allow list such as WEBHOOKS_ALLOWED_TARGETS). */
export interface AllowedRange {
  address: Address;
  bits: number;
  /** As the operator wrote it, for messages. */
  text: string;
}

/** Parses "127.0.0.0/8, ::1/128, 10.1.2.3" (a bare address is a /32 or /128); throws on a bad entry. */
export function parseAllowList(text: string): AllowedRange[] {
  return text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map((entry) => {
      try {
        if (entry.includes('/')) {
          const [address, bits] = ipaddr.parseCIDR(entry);
          return { address, bits, text: entry };
        }
        const address = ipaddr.parse(entry);
        return { address, bits: address.kind() === 'ipv4' ? 32 : 128, text: entry };
      } catch {
        throw new Error(`"${entry}" is not an IP address or CIDR range`);
      }
    });
}

/** Whether a destination may be reached, and if not, why. */
export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

/** Strips URL brackets and an IPv6 zone id ("[fe80::1%eth0]" → "fe80::1"). */
function bare(address: string): string {
  return address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
}

/** Whether a host name is an IP literal (with or without URL brackets). */
export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(bare(host));
}

/** The IPv4 address an IPv6 form carries: IPv4-mapped, IPv4-translated (RFC 6145) or the well-known NAT64 prefix. */
function embeddedIPv4(a: ipaddr.IPv6): ipaddr.IPv4 | null {
  const range = a.range();
  const p = a.parts;
  const inWellKnownNat64 = p[0] === 0x64 && p[1] === 0xff9b && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0;
  if (range === 'ipv4Mapped' || range === 'rfc6145' || inWellKnownNat64) {
    return new ipaddr.IPv4([p[6] >> 8, p[6] & 0xff, p[7] >> 8, p[7] & 0xff]);
  }
  return null;
}

/** What a policy guards, named in its refusals. */
export interface AddressPolicyOptions {
  /** Who is refused, as the subject of "… only reach public addresses". Default 'outbound requests'. */
  subject?: string;
  /** The operator setting that allows a range. Default 'the operator's allow list'. */
  setting?: string;
}

/**
 * Decides which addresses outbound requests may connect to: public unicast only, unless the
 * operator allows a range. IPv6 forms that carry an IPv4 address (mapped, translated, NAT64) are
 * judged by that IPv4 address, so `::ffff:127.0.0.1` is loopback. Refusals name what is guarded
 * and the setting that would allow it (`{ subject: 'webhooks', setting: 'WEBHOOKS_ALLOWED_TARGETS' }`).
 */
export class AddressPolicy {
  private readonly subject: string;
  private readonly setting: string;

  constructor(
    private readonly allowed: AllowedRange[] = [],
    options: AddressPolicyOptions = {},
  ) {
    this.subject = options.subject ?? 'outbound requests';
    this.setting = options.setting ?? "the operator's allow list";
  }

  /** The ranges the operator allows, as written. */
  get allowList(): string[] {
    return this.allowed.map((r) => r.text);
  }

  /** Judges one address (IPv4 or IPv6, brackets and zone ids accepted). */
  check(address: string): AddressVerdict {
    const text = bare(address);
    if (!ipaddr.isValid(text)) return { allowed: false, reason: `"${address}" is not an IP address` };
    const parsed = ipaddr.parse(text);
    if (this.isAllowListed(parsed)) return { allowed: true };
    if (parsed.kind() === 'ipv6') {
      const v6 = parsed as ipaddr.IPv6;
      const v4 = embeddedIPv4(v6);
      if (v4) {
        if (this.isAllowListed(v4)) return { allowed: true };
        const inner = this.judgeIPv4(v4);
        return inner.allowed ? inner : { allowed: false, reason: `${text} carries ${v4.toString()}: ${inner.reason}` };
      }
      const range = v6.range();
      // ::/80 holds the deprecated IPv4-compatible form and other non-routable oddities.
      if (v6.parts.slice(0, 5).every((x) => x === 0))
        return this.refuse(text, range === 'unicast' ? 'reserved' : range);
      return range === 'unicast' ? { allowed: true } : this.refuse(text, range);
    }
    return this.judgeIPv4(parsed as ipaddr.IPv4);
  }

  private judgeIPv4(a: ipaddr.IPv4): AddressVerdict {
    const range = a.range();
    return range === 'unicast' ? { allowed: true } : this.refuse(a.toString(), range);
  }

  private isAllowListed(a: Address): boolean {
    return this.allowed.some((r) => r.address.kind() === a.kind() && a.match(r.address as never, r.bits));
  }

  private refuse(address: string, range: string): AddressVerdict {
    return {
      allowed: false,
      reason: `${address} is ${RANGE_TEXT[range] ?? `in a reserved range (${range})`}; ${this.subject} only reach public addresses unless ${this.setting} allows it`,
    };
  }
}

const RANGE_TEXT: Record<string, string> = {
  private: 'a private address',
  loopback: 'a loopback address',
  linkLocal: 'a link-local address',
  carrierGradeNat: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  uniqueLocal: 'a unique-local (private) address',
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
};
