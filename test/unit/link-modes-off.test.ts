/**
 * A link can turn a mode off (issue 39): `remoteDiscoverySelector: null` and
 * `federatedServiceSelector: null` make a gateway-only link, `selector: null` a flat-only one. A
 * selector turned off selects nothing, is not observed, and asks for no credentials Secret (MRC3010).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Cluster, Link } from '../../src/model/index.js';
import type { LinkProps } from '../../src/model/link.js';
import { FleetDefinitionError } from '../../src/model/fleet.js';
import { linkSelectorQueries } from '../../src/model/label-selector.js';
import { compileObjects, DEFAULT_SELECTOR_QUERIES, federatedService, flatService, service, snapshot, source, spec, target } from '../fixtures/snapshots.js';

function fleet(link: Partial<LinkProps>) {
  return spec((f) => {
    const london = new Cluster(f, 'london');
    const paris = new Cluster(f, 'paris');
    new Link(f, 'london-paris', { source: london, target: paris, ...link });
  });
}

/** paris exports one service per mode: web (gateway), bb (flat), checkout (federated member). */
const PARIS = [service('default', 'web'), flatService('default', 'bb'), federatedService('default', 'checkout')];

function mirrors(link: Partial<LinkProps>, gateway = true) {
  const { objects, result } = compileObjects(fleet(link), snapshot({ paris: target(PARIS, { selectors: DEFAULT_SELECTOR_QUERIES, ...(gateway ? {} : { gateway: undefined }) }) }, { london: source(['default']) }));
  const services = [...objects.keys()].filter((k) => k.startsWith('london/Service/default/')).map((k) => k.split('/').pop()!).sort();
  return { services, codes: result.diagnostics.map((d) => d.code) };
}

test('by default a link mirrors in every mode, and the federated member asks for the credentials Secret (MRC3010)', () => {
  const { services, codes } = mirrors({});
  assert.deepEqual(services, ['bb-paris', 'checkout-federated', 'web-paris']);
  assert.ok(codes.includes('MRC3010'), codes.join(', '));
});

test('a gateway-only link (remoteDiscoverySelector and federatedServiceSelector null): only the gateway mirror, no MRC3010, and only its selector is observed', () => {
  const link = { remoteDiscoverySelector: null, federatedServiceSelector: null };
  const { services, codes } = mirrors(link);
  assert.deepEqual(services, ['web-paris']);
  assert.ok(!codes.includes('MRC3010'), codes.join(', '));
  assert.deepEqual(linkSelectorQueries(fleet(link).links[0]!), ['mirror.linkerd.io/exported=true']);
});

test('federatedServiceSelector null alone: the member joins no federated Service through the link, and asks for no Secret', () => {
  const { services, codes } = mirrors({ federatedServiceSelector: null, remoteDiscoveryCredentials: undefined });
  assert.deepEqual(services, ['bb-paris', 'web-paris']);
  // The flat mirror still needs the Secret: MRC3010 names bb, not checkout.
  assert.ok(codes.includes('MRC3010'));
});

test('a flat-only link (selector null) to a target without a gateway: the flat mirror, and no gateway-mode mirror or warning', () => {
  const { services, codes } = mirrors({ selector: null, federatedServiceSelector: null }, false);
  assert.deepEqual(services, ['bb-paris']);
  // (With the default selector, web would be skipped with MRC3005: no gateway address is known.)
  assert.ok(!codes.includes('MRC3005'), codes.join(', '));
});

test('a link with every selector null is a fleet-definition error', () => {
  assert.throws(() => fleet({ selector: null, remoteDiscoverySelector: null, federatedServiceSelector: null }), (e: unknown) => e instanceof FleetDefinitionError && /all null: the link would mirror nothing/.test(e.message));
});
