import { AddressPolicy, isIpLiteral, parseAllowList } from './address.policy';

describe('AddressPolicy', () => {
  const strict = new AddressPolicy();

  it.each([['93.184.216.34'], ['8.8.8.8'], ['2606:4700:4700::1111'], ['::ffff:8.8.8.8'], ['64:ff9b::808:808']])(
    'allows the public address %s',
    (address) => {
      expect(strict.check(address)).toEqual({ allowed: true });
    },
  );

  it.each([
    ['169.254.169.254', 'link-local'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.9.9.9', 'loopback'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['224.0.0.1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['fe80::1%eth0', 'link-local'],
    ['fd00::1', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['::', 'unspecified'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['[::ffff:169.254.169.254]', 'link-local'],
    ['::ffff:a00:1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['::127.0.0.1', 'loopback'],
    ['::a00:1', 'reserved'],
    ['2002:7f00:1::', 'reserved'],
  ])('refuses %s (%s)', (address, kind) => {
    const verdict = strict.check(address);
    expect(verdict.allowed).toBe(false);
    if (!verdict.allowed) {
      expect(verdict.reason).toContain(kind === 'reserved' ? 'reserved' : kind);
      expect(verdict.reason).toContain(
        "outbound requests only reach public addresses unless the operator's allow list allows it",
      );
    }
  });

  it('names what it guards and the operator setting in its refusals', () => {
    const webhooks = new AddressPolicy([], { subject: 'webhooks', setting: 'WEBHOOKS_ALLOWED_TARGETS' });
    expect(webhooks.check('127.0.0.1')).toEqual({
      allowed: false,
      reason:
        '127.0.0.1 is a loopback address; webhooks only reach public addresses unless WEBHOOKS_ALLOWED_TARGETS allows it',
    });
    expect(new AddressPolicy([], { subject: 'channels' }).check('10.0.0.1')).toEqual({
      allowed: false,
      reason:
        "10.0.0.1 is a private address; channels only reach public addresses unless the operator's allow list allows it",
    });
  });

  it('refuses what is not an address at all', () => {
    expect(strict.check('example.com').allowed).toBe(false);
  });

  it('lets the operator allow named ranges, including their IPv4-mapped forms, and nothing else', () => {
    const local = new AddressPolicy(parseAllowList('127.0.0.0/8, ::1/128'));
    expect(local.check('127.0.0.1')).toEqual({ allowed: true });
    expect(local.check('::1')).toEqual({ allowed: true });
    expect(local.check('::ffff:127.0.0.1')).toEqual({ allowed: true });
    expect(local.check('10.0.0.1').allowed).toBe(false);
    expect(local.check('169.254.169.254').allowed).toBe(false);
    expect(local.allowList).toEqual(['127.0.0.0/8', '::1/128']);
  });

  it('parses bare addresses as single hosts and rejects garbage', () => {
    const one = new AddressPolicy(parseAllowList('10.1.2.3'));
    expect(one.check('10.1.2.3')).toEqual({ allowed: true });
    expect(one.check('10.1.2.4').allowed).toBe(false);
    expect(parseAllowList('')).toEqual([]);
    expect(() => parseAllowList('10.0.0.0/8,nonsense')).toThrow('"nonsense" is not an IP address or CIDR range');
  });

  it('tells IP literals from names', () => {
    expect(isIpLiteral('[::1]')).toBe(true);
    expect(isIpLiteral('10.0.0.1')).toBe(true);
    expect(isIpLiteral('example.com')).toBe(false);
  });
});
