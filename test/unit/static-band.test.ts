/**
 * The static band of a Service CIDR (KEP-3070) and the check that a source's pinned ClusterIPs lie
 * in it (MRC3026, docs/modes/headless.md "Pinned ClusterIPs").
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { staticBandSize } from '../../src/compile/pinned-ips/band.js';
import { staticBandProblem } from '../../src/compile/pinned-ips/static-band.js';
import { parseIpRange } from '../../src/util/ip-range.js';

/** `count` pins at the first addresses of 10.96.0.0/16 from offset 1 on, `ns/p<i>` → IP. */
function pinsFromBottom(count: number): Record<string, string> {
  const pins: Record<string, string> = {};
  for (let i = 1; i <= count; i++) pins[`ns/p${i}`] = `10.96.${Math.floor(i / 256)}.${i % 256}`;
  return pins;
}

describe('staticBandSize', () => {
  test('is the table of kube-apiserver\'s own test (Test_calculateRangeOffset, pkg/registry/core/service/ipallocator, v1.36.3)', () => {
    // The CIDRs there are written with host bits; these are the same blocks.
    const cases: [string, bigint][] = [
      ['192.168.1.1/32', 0n],
      ['fd00::1/128', 0n],
      ['192.168.1.0/30', 0n],
      ['fd00::/126', 0n],
      ['192.168.1.0/28', 0n],
      ['192.168.1.0/27', 16n],
      ['fd00::/124', 0n],
      ['fd00::/122', 16n],
      ['192.168.0.0/22', 64n],
      ['fd00::/118', 64n],
      ['192.0.0.0/8', 256n],
      ['fd00::/12', 256n],
    ];
    for (const [cidr, band] of cases) assert.equal(staticBandSize(parseIpRange(cidr)), band, cidr);
  });
});

describe('staticBandProblem', () => {
  test('GIVEN no serviceCidrs THEN a range of at most 256 pinnable addresses passes, whatever is pinned in it', () => {
    assert.equal(staticBandProblem({ source: 'london', range: '10.96.0.0/24', pinned: pinsFromBottom(254) }), undefined);
    assert.equal(staticBandProblem({ source: 'london', range: 'fd00:10:96::/120', pinned: {} }), undefined);
    assert.equal(staticBandProblem({ source: 'london', range: '10.96.200.0/24', pinned: {} }), undefined);
  });

  test('GIVEN no serviceCidrs and a /16 with 300 pins THEN the warning names the source, the range, the limit, and how many pins lie past the first 256 addresses', () => {
    const problem = staticBandProblem({ source: 'london', range: '10.96.0.0/16', pinned: pinsFromBottom(300) });
    assert.ok(problem);
    assert.match(problem, /^london: pinnedServiceIPRange 10\.96\.0\.0\/16 has 65534 addresses to pin/);
    assert.match(problem, /provided IP is already allocated/);
    // offsets 257..300 lie past the first 256
    assert.match(problem, /44 of the 300 ClusterIPs pinned now lie there/);
    assert.match(problem, /10\.96\.0\.0\/24 if the Service CIDR starts at 10\.96\.0\.0/);
  });

  test('GIVEN no serviceCidrs THEN a /23 (510 pinnable addresses) is already too large, even with nothing pinned yet', () => {
    const problem = staticBandProblem({ source: 'london', range: '10.96.0.0/23', pinned: {} });
    assert.ok(problem);
    assert.doesNotMatch(problem, /pinned now/);
    assert.ok(staticBandProblem({ source: 'london', range: 'fd00:10:96::/119', pinned: {} }));
  });

  test('GIVEN serviceCidrs THEN the range must lie in the exact static band of the Service CIDR that holds it', () => {
    const serviceCidrs = ['10.96.0.0/16'];
    // the band of a /16 is 10.96.0.1-10.96.1.0: a /24 at the bottom fits, one above it does not
    assert.equal(staticBandProblem({ source: 'london', range: '10.96.0.0/24', serviceCidrs, pinned: {} }), undefined);
    const above = staticBandProblem({ source: 'london', range: '10.96.5.0/24', serviceCidrs, pinned: { 'ns/a': '10.96.5.1', 'ns/b': '10.96.5.2' } });
    assert.ok(above);
    assert.match(above, /^london: pinnedServiceIPRange 10\.96\.5\.0\/24 reaches beyond the static band of the cluster's Service CIDR 10\.96\.0\.0\/16 \(10\.96\.0\.1-10\.96\.1\.0, its lowest 256 addresses,/);
    assert.match(above, /2 of the 2 ClusterIPs pinned now lie there/);
    assert.match(above, /Declare pinnedServiceIPRange: '10\.96\.0\.0\/24'/);
    // a /23 at the bottom reaches past 10.96.1.0
    assert.match(staticBandProblem({ source: 'london', range: '10.96.0.0/23', serviceCidrs, pinned: pinsFromBottom(3) }) ?? '', /0 of the 3 ClusterIPs pinned now lie there/);
  });

  test('GIVEN a small Service CIDR THEN its band is 16 addresses: a /28 at its bottom fits, a /27 does not, and a /28 Service CIDR has no band at all', () => {
    assert.equal(staticBandProblem({ source: 'london', range: '10.96.0.0/28', serviceCidrs: ['10.96.0.0/24'], pinned: {} }), undefined);
    assert.match(staticBandProblem({ source: 'london', range: '10.96.0.0/27', serviceCidrs: ['10.96.0.0/24'], pinned: {} }) ?? '', /Declare pinnedServiceIPRange: '10\.96\.0\.0\/28'/);
    assert.match(staticBandProblem({ source: 'london', range: '10.96.0.0/29', serviceCidrs: ['10.96.0.0/28'], pinned: {} }) ?? '', /Service CIDR 10\.96\.0\.0\/28, which holds pinnedServiceIPRange 10\.96\.0\.0\/29, has no static band/);
  });

  test('GIVEN IPv6 serviceCidrs THEN a /120 at the bottom of a /108 fits (offsets 1-255 of a 256-address band), a /119 does not', () => {
    assert.equal(staticBandProblem({ source: 'london', range: 'fd00:10:96::/120', serviceCidrs: ['10.96.0.0/12', 'fd00:10:96::/108'], pinned: {} }), undefined);
    assert.match(staticBandProblem({ source: 'london', range: 'fd00:10:96::/119', serviceCidrs: ['fd00:10:96::/108'], pinned: {} }) ?? '', /fd00:10:96::1-fd00:10:96::100, its lowest 256 addresses/);
  });

  test('GIVEN serviceCidrs that do not hold the range THEN the warning says so and where the range belongs', () => {
    const problem = staticBandProblem({ source: 'london', range: '10.200.0.0/24', serviceCidrs: ['10.96.0.0/12'], pinned: {} });
    assert.match(problem ?? '', /^london: pinnedServiceIPRange 10\.200\.0\.0\/24 does not lie wholly in any of the cluster's serviceCidrs \(10\.96\.0\.0\/12\)/);
    assert.match(problem ?? '', /\(e\.g\. 10\.96\.0\.0\/24\)/);
  });

  test('GIVEN nested serviceCidrs THEN the range must lie in the band of each one that holds it', () => {
    // 10.96.0.0/24 is the band of the /16, but the /24 Service CIDR's own band is 16 addresses
    assert.ok(staticBandProblem({ source: 'london', range: '10.96.0.0/24', serviceCidrs: ['10.96.0.0/16', '10.96.0.0/24'], pinned: {} }));
  });

  test('GIVEN a pin outside the range (a mirror taken over from Linkerd\'s controller keeps its IP) THEN it is not counted', () => {
    const problem = staticBandProblem({ source: 'london', range: '10.96.0.0/23', serviceCidrs: ['10.96.0.0/16'], pinned: { 'ns/adopted': '10.96.200.7', 'ns/high': '10.96.1.9', 'ns/low': '10.96.0.9' } });
    assert.match(problem ?? '', /1 of the 2 ClusterIPs pinned now lie there/);
  });
});
