import { AddressPolicy, parseAllowList } from './address.policy';
import { checkTargetUrl } from './target.url';

describe('checkTargetUrl', () => {
  const strict = new AddressPolicy();

  it.each([
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 is a link-local address'],
    ['http://10.0.0.1/', '10.0.0.1 is a private address'],
    ['http://127.0.0.1:8080/hook', '127.0.0.1 is a loopback address'],
    ['http://[::1]/', '::1 is a loopback address'],
    ['http://[::ffff:127.0.0.1]/', 'carries 127.0.0.1: 127.0.0.1 is a loopback address'],
    ['https://[fd00::5]/', 'fd00::5 is a unique-local (private) address'],
  ])('judges the IP-literal host of %s', (url, reason) => {
    const verdict = checkTargetUrl(strict, url);
    expect(verdict.allowed).toBe(false);
    if (!verdict.allowed) expect(verdict.reason).toContain(reason);
  });

  it.each([
    ['http://localhost:8080/hook'],
    ['http://LOCALHOST/'],
    ['http://localhost./'],
    ['http://api.localhost/hook'],
    ['http://a.b.localhost:3000/'],
  ])('judges %s as 127.0.0.1', (url) => {
    expect(checkTargetUrl(strict, url)).toEqual({
      allowed: false,
      reason:
        "127.0.0.1 is a loopback address; outbound requests only reach public addresses unless the operator's allow list allows it",
    });
  });

  it.each([
    ['http://93.184.216.34/hook'],
    ['https://[2606:4700:4700::1111]/'],
    ['https://hooks.example.com/in'],
    // A name is judged where it resolves, when the agent connects: allowed at write time.
    ['https://internal.example.net/hook'],
    ['http://notlocalhost/'],
    ['http://localhost.example.com/'],
  ])('allows %s at write time', (url) => {
    expect(checkTargetUrl(strict, url)).toEqual({ allowed: true });
  });

  it('follows the allow list, localhost included', () => {
    const local = new AddressPolicy(parseAllowList('127.0.0.0/8'));
    expect(checkTargetUrl(local, 'http://127.0.0.1:8080/hook')).toEqual({ allowed: true });
    expect(checkTargetUrl(local, 'http://localhost:8080/hook')).toEqual({ allowed: true });
    expect(checkTargetUrl(local, 'http://10.0.0.1/').allowed).toBe(false);
  });

  it('names the guarded subject and setting in a refusal', () => {
    const policy = new AddressPolicy([], { subject: 'channels', setting: 'PUBLISHER_ALLOWED_TARGETS' });
    expect(checkTargetUrl(policy, 'http://192.168.0.10/')).toEqual({
      allowed: false,
      reason:
        '192.168.0.10 is a private address; channels only reach public addresses unless PUBLISHER_ALLOWED_TARGETS allows it',
    });
  });

  it('throws on what is not an absolute URL, as new URL does', () => {
    expect(() => checkTargetUrl(strict, '/relative')).toThrow('Invalid URL');
  });
});
