/** Gateway checks (src/observe/gateway-checks.ts): addresses a source must never send mirrored traffic to, and the last-known-gateway rule. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Cluster, Link } from '../../src/index.js';
import { checkedGateway, gatewayAddressProblem, gatewayProblems, linkingSourceRanges, lockGatewayProblems } from '../../src/observe/gateway-checks.js';
import type { ObservedGateway, TargetSnapshot } from '../../src/snapshot/snapshot.js';
import { spec } from '../fixtures/snapshots.js';

const fleet = spec((f) => {
  const london = new Cluster(f, 'london', { serviceCidrs: ['10.96.0.0/12', 'fd00:10:96::/108'], podCidrs: ['10.244.0.0/16'] });
  const rome = new Cluster(f, 'rome', { pinnedServiceIPRange: '172.20.0.0/24' });
  const paris = new Cluster(f, 'paris');
  new Link(f, 'l', { source: london, target: paris });
  new Link(f, 'r', { source: rome, target: paris });
});
const ranges = linkingSourceRanges(fleet, 'paris');
const GOOD: ObservedGateway = { addresses: ['203.0.113.7'], port: 4143, identity: 'gw.paris.example' };

function target(gateway?: ObservedGateway): TargetSnapshot {
  return { selectors: [], services: [], missingExplicitExports: [], ...(gateway ? { gateway } : {}) };
}

describe('gateway addresses', () => {
  const rejected: [string, RegExp][] = [
    ['127.0.0.1', /loopback/],
    ['127.1.2.3', /loopback/],
    ['169.254.169.254', /link-local.*metadata/],
    ['0.0.0.0', /unspecified/],
    ['224.0.0.1', /multicast/],
    ['255.255.255.255', /broadcast/],
    ['::1', /loopback/],
    ['::', /unspecified/],
    ['fe80::1', /link-local/],
    ['ff02::1', /multicast/],
    ['::ffff:127.0.0.1', /IPv4-mapped 127\.0\.0\.1\) is a loopback/],
    ['::ffff:a9fe:a9fe', /IPv4-mapped 169\.254\.169\.254\) is a link-local/],
    ['10.96.0.1', /inside the Service range 10\.96\.0\.0\/12 of source cluster "london"/],
    ['::ffff:10.96.0.1', /IPv4-mapped 10\.96\.0\.1\) lies inside the Service range/],
    // issue 33: NAT64's well-known prefix reaches the IPv4 address inside it, from the NAT64 gateway
    ['64:ff9b::a9fe:a9fe', /NAT64 of 169\.254\.169\.254\) is a link-local/],
    ['64:ff9b::7f00:1', /NAT64 of 127\.0\.0\.1\) is a loopback/],
    ['64:ff9b::10.96.0.1', /NAT64 of 10\.96\.0\.1\) lies inside the Service range/],
    ['fd00:10:96::1', /inside the Service range fd00:10:96::\/108/],
    ['10.244.3.4', /inside the pod range 10\.244\.0\.0\/16 of source cluster "london"/],
    ['172.20.0.9', /inside the pinned Service range 172\.20\.0\.0\/24 of source cluster "rome"/],
    ['gw.example.com', /is not an IP address/],
  ];
  for (const [ip, reason] of rejected) {
    test(`GIVEN gateway address ${ip} WHEN checked THEN it is rejected with the reason`, () => {
      assert.match(gatewayAddressProblem(ip, ranges) ?? '', reason);
    });
  }

  test('GIVEN public and private addresses outside the declared ranges WHEN checked THEN they pass', () => {
    for (const ip of ['203.0.113.7', '10.0.0.5', '192.168.1.10', '2001:db8::5', '::ffff:203.0.113.7', '64:ff9b::203.0.113.7']) assert.equal(gatewayAddressProblem(ip, ranges), undefined, ip);
  });

  test('GIVEN a gateway with a bad port or identity WHEN checked THEN each problem is listed', () => {
    assert.deepEqual(gatewayProblems(GOOD, ranges), []);
    const problems = gatewayProblems({ addresses: ['127.0.0.1', '203.0.113.7'], port: 0, identity: 'not an identity' }, ranges);
    assert.equal(problems.length, 3, problems.join('\n'));
  });
});

describe('which gateway a target keeps', () => {
  test('GIVEN a rejected gateway and a good last one WHEN checked THEN the gateway is dropped with a loud warning naming target, address and reason', () => {
    const warnings: string[] = [];
    const result = checkedGateway('paris', target({ ...GOOD, addresses: ['169.254.169.254'] }), GOOD, ranges, warnings);
    assert.equal(result.gateway, undefined);
    assert.match(warnings.join('\n'), /cluster "paris": REJECTED its gateway 169\.254\.169\.254:4143 .*link-local.*keeping the last known gateway 203\.0\.113\.7:4143/);
  });

  test('GIVEN a rejected gateway and none known before WHEN checked THEN the warning says its gateway-mode mirrors are not compiled', () => {
    const warnings: string[] = [];
    assert.equal(checkedGateway('paris', target({ ...GOOD, addresses: ['127.0.0.1'] }), undefined, ranges, warnings).gateway, undefined);
    assert.match(warnings.join('\n'), /no earlier gateway is known, so its gateway-mode mirrors are not compiled/);
  });

  test('GIVEN a gateway that lost its identity WHEN checked THEN it is rejected (no automatic security downgrade)', () => {
    const warnings: string[] = [];
    const { identity: _gone, ...noIdentity } = GOOD;
    assert.equal(checkedGateway('paris', target(noIdentity), GOOD, ranges, warnings).gateway, undefined);
    assert.match(warnings.join('\n'), /lost its identity gw\.paris\.example/);
  });

  test('GIVEN a gateway whose port or identity changed WHEN checked THEN it is taken, with a warning for plan output', () => {
    const warnings: string[] = [];
    const moved = { ...GOOD, port: 4144, identity: 'gw2.paris.example' };
    assert.deepEqual(checkedGateway('paris', target(moved), GOOD, ranges, warnings).gateway, moved);
    assert.ok(warnings.some((w) => w.includes('port changed from 4143 to 4144')), warnings.join('\n'));
    assert.ok(warnings.some((w) => w.includes('identity changed from gw.paris.example to gw2.paris.example')), warnings.join('\n'));
  });

  test('GIVEN a lock whose gateway lies in a source range WHEN the lock is checked against the fleet THEN the problem names its JSON path', () => {
    const snap = { format: 1 as const, targets: { paris: target({ ...GOOD, addresses: ['10.96.0.1'] }) }, sources: {} };
    const [problem] = lockGatewayProblems(fleet, snap);
    assert.match(problem ?? '', /^\$\.targets\.paris\.gateway: address 10\.96\.0\.1 lies inside the Service range/);
  });
});

describe('declared ranges in the fleet definition', () => {
  test('GIVEN serviceCidrs, podCidrs or a gateway identity that are malformed WHEN the fleet is built THEN each is a definition problem naming the cluster', () => {
    assert.throws(
      () => spec((f) => {
        const a = new Cluster(f, 'a', { serviceCidrs: ['10.96.0.0/33'], podCidrs: ['not-a-cidr'], gateway: { identity: 'bad identity' } });
        new Link(f, 'l', { source: a, target: new Cluster(f, 'b') });
      }),
      (e: unknown) => {
        const message = String((e as Error).message);
        return /cluster fleet\/a: serviceCidrs entry "10\.96\.0\.0\/33"/.test(message) && /podCidrs entry "not-a-cidr" is not a CIDR block/.test(message) && /gateway\.identity "bad identity" is not a valid gateway identity/.test(message);
      },
    );
  });
});
