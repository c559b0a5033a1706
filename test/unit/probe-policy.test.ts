/**
 * The gateway probe's address policy (issue 33, item 5): a gateway address the target chose is
 * probed only when it is public, inside a range the fleet declares for probing, or named by the
 * fleet file itself.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { nonPublicAddress, probeAddresses } from '../../src/observe/probe-policy.js';

describe('gateway probe address policy', () => {
  const notPublic: [string, RegExp][] = [
    ['10.1.2.3', /private address \(RFC 1918\)/],
    ['172.16.0.1', /private address/],
    ['172.31.255.254', /private address/],
    ['192.168.0.10', /private address/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['100.127.255.254', /carrier-grade NAT/],
    ['192.0.0.8', /IETF protocol assignment/],
    ['192.0.2.2', /documentation/],
    ['198.51.100.30', /documentation/],
    ['203.0.113.10', /documentation/],
    ['198.18.0.1', /benchmarking/],
    ['240.0.0.1', /reserved/],
    ['fd00::2', /unique local/],
    ['fc12::1', /unique local/],
    ['fec0::1', /site-local/],
    ['2001:db8::1', /documentation/],
    ['3fff::1', /documentation/],
    ['2002:a00:1::1', /6to4/],
    ['100::1', /discard-only/],
    ['64:ff9b:1::a00:1', /local-use NAT64/],
    ['::ffff:10.1.2.3', /private address \(RFC 1918\) in IPv6 form \(10\.1\.2\.3\)/],
    ['64:ff9b::c0a8:1', /private address \(RFC 1918\) in IPv6 form \(192\.168\.0\.1\)/],
  ];
  for (const [ip, what] of notPublic) {
    test(`${ip} is not public: ${what.source}`, () => assert.match(nonPublicAddress(ip) ?? '', what));
  }

  test('public addresses, in every form, are public', () => {
    for (const ip of ['8.8.8.8', '1.1.1.1', '100.63.255.255', '100.128.0.0', '172.15.255.255', '172.32.0.0', '192.169.0.1', '2a00:1450:4001::1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808']) {
      assert.equal(nonPublicAddress(ip), undefined, ip);
    }
  });

  test('GIVEN no declared range THEN only public addresses are probed, each refused one with its reason', () => {
    assert.deepEqual(probeAddresses(['8.8.8.8', '10.1.2.3', 'fd00::2'], {}), {
      allowed: ['8.8.8.8'],
      refused: [{ ip: '10.1.2.3', why: 'a private address (RFC 1918)' }, { ip: 'fd00::2', why: 'a unique local address (RFC 4193)' }],
    });
  });

  test('GIVEN allowedCidrs THEN an address inside them is probed, one outside is not', () => {
    const { allowed, refused } = probeAddresses(['10.20.3.4', '10.21.0.1', 'fd00::2', '::ffff:10.20.0.9'], { allowedCidrs: ['10.20.0.0/16', 'fd00::/64'] });
    assert.deepEqual(allowed, ['10.20.3.4', 'fd00::2', '::ffff:10.20.0.9']);
    assert.deepEqual(refused.map((r) => r.ip), ['10.21.0.1']);
  });

  test('GIVEN gateway.addresses naming an IP THEN that IP is probed; a host name it names gives its resolved IPs no such pass', () => {
    assert.deepEqual(probeAddresses(['10.1.2.3', '2001:db8::1'], { namedAddresses: ['10.1.2.3', '2001:0db8:0:0::1', 'gw.example.com'] }).allowed, ['10.1.2.3', '2001:db8::1']);
    assert.deepEqual(probeAddresses(['10.9.9.9'], { namedAddresses: ['gw.example.com'] }).allowed, []);
  });
});
