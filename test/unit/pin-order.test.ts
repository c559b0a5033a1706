/**
 * Which addresses new pins take (src/compile/pinned-ips/pin-order.ts, allocate-pinned-ips.ts): every
 * address of the pinned blocks that lies in a static band first, then the rest; existing pins stay;
 * addresses the source holds are never chosen (issue 35: pinned ClusterIPs past the static band).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Diagnostics } from '../../src/compile/diagnostics.js';
import { allocatePinnedIPs, type PinnedIPInput } from '../../src/compile/pinned-ips/allocate-pinned-ips.js';
import { pinOrder } from '../../src/compile/pinned-ips/pin-order.js';

const requests = (count: number, from = 0) => Array.from({ length: count }, (_, i) => ({ namespace: 'data', name: `kafka-${String(from + i).padStart(3, '0')}-paris`, origin: `paris/data/kafka pod kafka-${from + i}` }));
const allocate = (input: Omit<PinnedIPInput, 'source' | 'previous' | 'live'> & Partial<PinnedIPInput>) => {
  const diagnostics = new Diagnostics();
  const allocation = allocatePinnedIPs({ source: 'london', previous: {}, live: [], ...input }, diagnostics);
  return { allocation, findings: diagnostics.findings };
};
const lastOctets = (ips: readonly string[]) => ips.map((ip) => ip.split('.').slice(2).join('.'));

describe('pinOrder', () => {
  test('one block at the bottom of its Service CIDR: lowest first, the band (offsets 1-32 of a /23) before the rest', () => {
    const segments = pinOrder(['10.97.0.0/25'], ['10.97.0.0/23']);
    assert.deepEqual(segments.map((s) => [s.range.cidr, s.first, s.last, s.inBand]), [['10.97.0.0/25', 1n, 32n, true], ['10.97.0.0/25', 33n, 126n, false]]);
  });

  test('a second block at the bottom of another Service CIDR: both bands before anything past a band', () => {
    const segments = pinOrder(['10.97.0.0/25', '10.98.0.0/27'], ['10.97.0.0/23', '10.98.0.0/23']);
    assert.deepEqual(segments.map((s) => [s.range.cidr, s.first, s.last, s.inBand]), [
      ['10.97.0.0/25', 1n, 32n, true],
      ['10.98.0.0/27', 1n, 30n, true],
      ['10.97.0.0/25', 33n, 126n, false],
    ]);
  });

  test('a block above the band, or in no declared Service CIDR, has no band part; without serviceCidrs a block\'s first 256 count as band', () => {
    assert.deepEqual(pinOrder(['10.96.5.0/24'], ['10.96.0.0/16']).map((s) => [s.first, s.last, s.inBand]), [[1n, 254n, false]]);
    assert.deepEqual(pinOrder(['10.50.0.0/24'], ['10.96.0.0/16']).map((s) => s.inBand), [false]);
    assert.deepEqual(pinOrder(['10.96.0.0/23', '10.100.0.0/24']).map((s) => [s.range.cidr, s.first, s.last, s.inBand]), [
      ['10.96.0.0/23', 1n, 256n, true],
      ['10.100.0.0/24', 1n, 254n, true],
      ['10.96.0.0/23', 257n, 510n, false],
    ]);
  });
});

describe('allocatePinnedIPs with several blocks', () => {
  const blocks = { range: '10.97.0.0/25', additionalRanges: ['10.98.0.0/27'], serviceCidrs: ['10.97.0.0/23', '10.98.0.0/23'] };

  test('more pins than the first band holds: the rest go to the band of the second block, none past a band', () => {
    const { allocation, findings } = allocate({ ...blocks, requests: requests(50) });
    assert.deepEqual(findings, []);
    const ips = Object.values(allocation);
    assert.equal(ips.length, 50);
    assert.deepEqual(lastOctets(ips.slice(0, 32)), Array.from({ length: 32 }, (_, i) => `0.${i + 1}`));
    assert.deepEqual(lastOctets(ips.slice(32)), Array.from({ length: 18 }, (_, i) => `0.${i + 1}`));
    assert.ok(ips.slice(32).every((ip) => ip.startsWith('10.98.0.')), ips.slice(32).join(' '));
  });

  test('existing pins past the band stay where they are (a live mirror is never re-pinned); new pins fill the bands first, skipping what the source holds', () => {
    // 40 mirrors pinned by an earlier run with one block: 10.97.0.1-40 (8 of them past the band of 32)
    const previous = Object.fromEntries(requests(40).map((r, i) => [`${r.namespace}/${r.name}`, `10.97.0.${i + 1}`]));
    const live = [
      ...Object.entries(previous).map(([key, ip]) => ({ namespace: 'data', name: key.split('/')[1]!, ip, managed: true })),
      // a Service the source holds in the second block (another tool pinned it)
      { namespace: 'kube-system', name: 'dns', ip: '10.98.0.1', managed: false },
    ];
    const { allocation, findings } = allocate({ ...blocks, requests: requests(45), previous, live });
    assert.deepEqual(findings, []);
    for (const [key, ip] of Object.entries(previous)) assert.equal(allocation[key], ip, key);
    const fresh = requests(5, 40).map((r) => allocation[`${r.namespace}/${r.name}`]);
    assert.deepEqual(fresh, ['10.98.0.2', '10.98.0.3', '10.98.0.4', '10.98.0.5', '10.98.0.6']);
  });

  test('every band full: the next pin lies past a band (MRC3026 warns about that block), and a full set of blocks is MRC3025', () => {
    const { allocation } = allocate({ ...blocks, requests: requests(32 + 30 + 1) });
    assert.equal(Object.values(allocation).at(-1), '10.97.0.33');
    const full = allocate({ range: '10.97.0.0/30', additionalRanges: ['10.98.0.0/30'], serviceCidrs: ['10.97.0.0/23', '10.98.0.0/23'], requests: requests(5) });
    assert.deepEqual(Object.values(full.allocation), ['10.97.0.1', '10.97.0.2', '10.98.0.1', '10.98.0.2']);
    assert.equal(full.findings.length, 1);
    assert.match(full.findings[0]!.message, /pinnedServiceIPRange 10\.97\.0\.0\/30 with additionalPinnedServiceIPRanges 10\.98\.0\.0\/30 has no free address left .*additionalPinnedServiceIPRanges/);
  });

  test('the same inputs give the same pins, in whatever order the requests come', () => {
    const forward = allocate({ ...blocks, requests: requests(70) }).allocation;
    const backward = allocate({ ...blocks, requests: requests(70).reverse() }).allocation;
    assert.deepEqual(JSON.stringify(backward), JSON.stringify(forward));
  });
});
