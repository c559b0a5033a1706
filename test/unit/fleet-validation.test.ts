/**
 * Fleet.toSpec(): the validated, sorted, defaulted fleet, and FleetDefinitionError for every
 * mistake in the definition (src/model/fleet.ts, src/model/validate-fleet.ts).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { App } from 'cdk8s';
import { Construct } from 'constructs';
import { Cluster, DEFAULT_OBSERVATION_BUDGET, ExplicitExport, Fleet, FleetDefinitionError, Link, type LabelSelector } from '../../src/model/index.js';

function newFleet(): Fleet {
  return new Fleet(new App({ outdir: 'unused' }), 'fleet');
}

/** Runs toSpec() and returns the FleetDefinitionError it must throw. */
function definitionError(fleet: Fleet): FleetDefinitionError {
  let caught: unknown;
  try {
    fleet.toSpec();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof FleetDefinitionError, `expected a FleetDefinitionError, got ${String(caught)}`);
  return caught;
}

/** Asserts the error has exactly one problem, and that the problem and the message contain every fragment. */
function assertSingleProblem(error: FleetDefinitionError, ...fragments: (string | RegExp)[]): void {
  assert.equal(error.problems.length, 1, error.message);
  for (const f of fragments) {
    if (typeof f === 'string') {
      assert.ok(error.problems[0]!.includes(f), `problem lacks ${JSON.stringify(f)}: ${error.problems[0]}`);
      assert.ok(error.message.includes(f), `message lacks ${JSON.stringify(f)}: ${error.message}`);
    } else {
      assert.match(error.problems[0]!, f);
      assert.match(error.message, f);
    }
  }
}

describe('Fleet.toSpec() on a valid fleet', () => {
  test('applies the documented defaults to clusters and links', () => {
    // GIVEN two clusters with no options and a link with no options
    const fleet = newFleet();
    const east = new Cluster(fleet, 'east');
    const west = new Cluster(fleet, 'west');
    new Link(fleet, 'east-from-west', { source: east, target: west });

    // WHEN the spec is built
    const spec = fleet.toSpec();

    // THEN clusters get context = name, cluster.local, and the stock gateway
    assert.deepEqual(spec.clusters[0], {
      name: 'east',
      path: 'fleet/east',
      access: { context: 'east' },
      clusterDomain: 'cluster.local',
      trustDomain: 'cluster.local',
      localFederatedSelector: { matchLabels: { 'mirror.linkerd.io/federated': 'member' } },
      gateway: { namespace: 'linkerd-multicluster', name: 'linkerd-gateway' },
      controlPlaneNamespace: 'linkerd',
      trustRootExpiryWarningDays: 30,
      observationBudget: DEFAULT_OBSERVATION_BUDGET,
    });
    // AND the link selects mirror.linkerd.io/exported=true, excludes nothing and mirrors all namespaces
    assert.deepEqual(spec.links, [
      {
        source: 'east',
        target: 'west',
        path: 'fleet/east-from-west',
        selector: { matchLabels: { 'mirror.linkerd.io/exported': 'true' } },
        remoteDiscoverySelector: { matchLabels: { 'mirror.linkerd.io/exported': 'remote-discovery' } },
        federatedServiceSelector: { matchLabels: { 'mirror.linkerd.io/federated': 'member' } },
        excludedLabels: [],
        excludedAnnotations: [],
        namespaces: { include: [], exclude: [] },
        createMissingNamespaces: false,
        globalServices: false,
      },
    ]);
    assert.deepEqual(spec.explicitExports, []);
  });

  test('keeps explicit settings instead of the defaults', () => {
    // GIVEN a cluster with every option set, and a link with every option set
    const fleet = newFleet();
    const a = new Cluster(fleet, 'a-id', {
      name: 'alpha',
      access: { kubeconfig: 'kc.yaml', context: 'ctx-a' },
      clusterDomain: 'alpha.example',
      trustDomain: 'cluster.local',
      localFederatedSelector: { matchLabels: { federation: 'alpha' } },
      gateway: { namespace: 'gw-ns', name: 'gw', addresses: ['203.0.113.1'], port: 4143, identity: 'gw.id' },
      pinnedServiceIPRange: '10.96.0.0/24',
      controlPlaneNamespace: 'linkerd-cp',
      trustRootExpiryWarningDays: 60,
      observationBudget: { deadlineSeconds: 30 },
    });
    const b = new Cluster(fleet, 'beta');
    const selector: LabelSelector = { matchExpressions: [{ key: 'export', operator: 'Exists' }] };
    new Link(fleet, 'l', {
      source: b,
      target: a,
      selector,
      federatedServiceSelector: { matchLabels: { federation: 'global' } },
      excludedLabels: ['example.com/*'],
      excludedAnnotations: ['note'],
      namespaces: { include: ['team-*'], exclude: ['team-secret'] },
      createMissingNamespaces: true,
      globalServices: true,
    });

    // WHEN the spec is built
    const spec = fleet.toSpec();

    // THEN every setting is kept; the cluster name (not the construct id) is used
    assert.deepEqual(spec.clusters.find((c) => c.name === 'alpha'), {
      name: 'alpha',
      path: 'fleet/a-id',
      access: { kubeconfig: 'kc.yaml', context: 'ctx-a' },
      clusterDomain: 'alpha.example',
      trustDomain: 'cluster.local',
      localFederatedSelector: { matchLabels: { federation: 'alpha' } },
      gateway: { namespace: 'gw-ns', name: 'gw', addresses: ['203.0.113.1'], port: 4143, identity: 'gw.id' },
      pinnedServiceIPRange: '10.96.0.0/24',
      controlPlaneNamespace: 'linkerd-cp',
      trustRootExpiryWarningDays: 60,
      observationBudget: { ...DEFAULT_OBSERVATION_BUDGET, deadlineSeconds: 30 },
    });
    assert.deepEqual(spec.links[0], {
      source: 'beta',
      target: 'alpha',
      path: 'fleet/l',
      selector,
      remoteDiscoverySelector: { matchLabels: { 'mirror.linkerd.io/exported': 'remote-discovery' } },
      federatedServiceSelector: { matchLabels: { federation: 'global' } },
      excludedLabels: ['example.com/*'],
      excludedAnnotations: ['note'],
      namespaces: { include: ['team-*'], exclude: ['team-secret'] },
      createMissingNamespaces: true,
      globalServices: true,
    });
  });

  test('sorts clusters by name, links by source then target, exports by cluster, namespace, name', () => {
    // GIVEN constructs created in an unsorted order (and ids that sort differently from names)
    const fleet = newFleet();
    const c = new Cluster(fleet, 'a', { name: 'charlie' });
    const b = new Cluster(fleet, 'b', { name: 'bravo' });
    const a = new Cluster(fleet, 'c', { name: 'alpha' });
    new Link(fleet, 'l1', { source: c, target: a });
    new Link(fleet, 'l2', { source: a, target: c });
    new Link(fleet, 'l3', { source: a, target: b });
    new ExplicitExport(fleet, 'e1', { cluster: c, namespace: 'ns', name: 'z' });
    new ExplicitExport(fleet, 'e2', { cluster: c, namespace: 'ns', name: 'a' });
    new ExplicitExport(fleet, 'e3', { cluster: b, namespace: 'zz', name: 'a' });
    new ExplicitExport(fleet, 'e4', { cluster: c, namespace: 'aa', name: 'z' });

    // WHEN the spec is built
    const spec = fleet.toSpec();

    // THEN every list is in sorted order
    assert.deepEqual(spec.clusters.map((x) => x.name), ['alpha', 'bravo', 'charlie']);
    assert.deepEqual(spec.links.map((l) => `${l.source}<-${l.target}`), ['alpha<-bravo', 'alpha<-charlie', 'charlie<-alpha']);
    assert.deepEqual(spec.explicitExports.map((e) => `${e.cluster}/${e.namespace}/${e.name}`), [
      'bravo/zz/a',
      'charlie/aa/z',
      'charlie/ns/a',
      'charlie/ns/z',
    ]);
    assert.equal(spec.explicitExports[0]!.path, 'fleet/e3');
  });

  test('finds clusters and links created in nested constructs', () => {
    // GIVEN clusters and a link under an intermediate construct (a "region")
    const fleet = newFleet();
    const region = new Construct(fleet, 'region');
    const x = new Cluster(region, 'x');
    const y = new Cluster(fleet, 'y');
    new Link(region, 'y-from-x', { source: y, target: x });
    // WHEN the outer fleet builds its spec
    const spec = fleet.toSpec();
    // THEN they are part of it, with their full construct paths
    assert.deepEqual(spec.clusters.map((c) => c.path), ['fleet/region/x', 'fleet/y']);
    assert.deepEqual(spec.links.map((l) => l.path), ['fleet/region/y-from-x']);
  });

  test('the spec does not share arrays with the construct props', () => {
    // GIVEN props arrays that the caller keeps a reference to
    const fleet = newFleet();
    const excluded = ['a.example/*'];
    const addresses = ['203.0.113.1'];
    const s = new Cluster(fleet, 's');
    const t = new Cluster(fleet, 't', { gateway: { addresses } });
    new Link(fleet, 'l', { source: s, target: t, excludedLabels: excluded });
    // WHEN the spec is built and the caller mutates the arrays afterwards
    const spec = fleet.toSpec();
    excluded.push('b.example/*');
    addresses.push('203.0.113.2');
    // THEN the spec is unchanged
    assert.deepEqual(spec.links[0]!.excludedLabels, ['a.example/*']);
    assert.deepEqual(spec.clusters.find((c) => c.name === 't')!.gateway.addresses, ['203.0.113.1']);
  });
});

describe('Fleet.toSpec() on an invalid fleet', () => {
  test('the error counts its problems and lists each on its own line', () => {
    const fleet = newFleet();
    new Cluster(fleet, 'Bad');
    const error = definitionError(fleet);
    assert.equal(error.name, 'FleetDefinitionError');
    // each line starts with where the construct was created (this file), as a compiler's file:line:column
    assert.match(error.message, /^the fleet definition has 1 problem:\n {2}- test\/unit\/fleet-validation\.test\.ts:\d+:\d+: cluster fleet\/Bad: /);
    assert.equal(error.locations.length, 1);
  });

  test('a link target created in another fleet is an unknown cluster', () => {
    // GIVEN a cluster created in a different Fleet, passed as the target
    const fleet = newFleet();
    const other = newFleet();
    const source = new Cluster(fleet, 'east');
    const stranger = new Cluster(other, 'west');
    new Link(fleet, 'east-from-west', { source, target: stranger });
    // WHEN validated
    const error = definitionError(fleet);
    // THEN the link's path, the end, and the foreign cluster are named, with the fix
    assertSingleProblem(error, 'link fleet/east-from-west', 'its target cluster "west"', 'not defined in this fleet', 'new Cluster(fleet');
  });

  test('a foreign cluster is unknown even when a fleet cluster has the same name', () => {
    // GIVEN a fleet cluster "west" and a different Cluster object also named "west"
    const fleet = newFleet();
    const source = new Cluster(fleet, 'east');
    new Cluster(fleet, 'west');
    const lookalike = new Cluster(newFleet(), 'west');
    new Link(fleet, 'east-from-west', { source, target: lookalike });
    // WHEN validated / THEN the link is rejected: identity, not the name, decides membership
    assertSingleProblem(definitionError(fleet), 'link fleet/east-from-west', 'its target cluster "west"', 'not defined in this fleet');
  });

  test('a link source that is not a Cluster at all is reported', () => {
    const fleet = newFleet();
    const target = new Cluster(fleet, 'west');
    new Link(fleet, 'bad', { source: 'west' as unknown as Cluster, target });
    assertSingleProblem(definitionError(fleet), 'link fleet/bad', 'its source is not a Cluster');
  });

  test('a link without a source says that the property is missing, not that it is no Cluster', () => {
    const fleet = newFleet();
    const target = new Cluster(fleet, 'west');
    new Link(fleet, 'bad', { source: undefined as unknown as Cluster, target });
    assertSingleProblem(definitionError(fleet), 'link fleet/bad', 'it has no source (the property source is missing)');
  });

  test('a self link is reported', () => {
    const fleet = newFleet();
    const east = new Cluster(fleet, 'east');
    new Link(fleet, 'loop', { source: east, target: east });
    assertSingleProblem(definitionError(fleet), 'link fleet/loop', 'cannot link to itself', '"east"');
  });

  test('two clusters with the same name are reported, naming both constructs', () => {
    // GIVEN two constructs that resolve to the same cluster name
    const fleet = newFleet();
    new Cluster(fleet, 'east');
    new Cluster(fleet, 'east-2', { name: 'east' });
    // THEN the second is reported and points at the first
    assertSingleProblem(definitionError(fleet), 'cluster fleet/east-2', 'name "east" is already used by fleet/east', 'unique');
  });

  test('two links between the same source and target are reported, naming both', () => {
    const fleet = newFleet();
    const east = new Cluster(fleet, 'east');
    const west = new Cluster(fleet, 'west');
    new Link(fleet, 'first', { source: east, target: west });
    new Link(fleet, 'second', { source: east, target: west });
    assertSingleProblem(definitionError(fleet), 'link fleet/second', '"east" already links to "west" in fleet/first');
  });

  test('links in both directions between two clusters are not duplicates', () => {
    const fleet = newFleet();
    const east = new Cluster(fleet, 'east');
    const west = new Cluster(fleet, 'west');
    new Link(fleet, 'e', { source: east, target: west });
    new Link(fleet, 'w', { source: west, target: east });
    assert.equal(fleet.toSpec().links.length, 2);
  });

  test('an upper-case cluster name is reported', () => {
    const fleet = newFleet();
    new Cluster(fleet, 'id', { name: 'East' });
    assertSingleProblem(definitionError(fleet), 'cluster fleet/id', '"East" is not a DNS label', 'mirror-name suffix');
  });

  test('a cluster name longer than 63 characters is reported with its length', () => {
    const fleet = newFleet();
    const long = 'a'.repeat(64);
    new Cluster(fleet, 'long', { name: long });
    assertSingleProblem(definitionError(fleet), 'cluster fleet/long', 'is 64 characters long; at most 63');
  });

  test('a cluster name of exactly 63 characters is accepted', () => {
    const fleet = newFleet();
    new Cluster(fleet, 'long', { name: 'a'.repeat(63) });
    assert.equal(fleet.toSpec().clusters[0]!.name.length, 63);
  });

  test('a selector with an unknown operator is reported under the link', () => {
    const fleet = newFleet();
    const s = new Cluster(fleet, 's');
    const t = new Cluster(fleet, 't');
    new Link(fleet, 'l', { source: s, target: t, selector: { matchExpressions: [{ key: 'k', operator: 'Equals' as 'In', values: ['v'] }] } });
    assertSingleProblem(definitionError(fleet), 'link fleet/l: selector:', 'unknown operator "Equals"');
  });

  test('a selector with In and no values is reported under the link', () => {
    const fleet = newFleet();
    const s = new Cluster(fleet, 's');
    const t = new Cluster(fleet, 't');
    new Link(fleet, 'l', { source: s, target: t, selector: { matchExpressions: [{ key: 'k', operator: 'In', values: [] }] } });
    assertSingleProblem(definitionError(fleet), 'link fleet/l: selector:', 'In needs at least one value');
  });

  test('an empty selector is reported under the link (it would mirror nothing)', () => {
    const fleet = newFleet();
    const s = new Cluster(fleet, 's');
    const t = new Cluster(fleet, 't');
    new Link(fleet, 'l', { source: s, target: t, selector: {} });
    assertSingleProblem(definitionError(fleet), 'link fleet/l: selector:', 'the selector is empty');
  });

  test('bad excludedLabels and excludedAnnotations entries are reported; "prefix/*" and keys are fine', () => {
    // GIVEN one valid key, one valid glob and two invalid entries per field
    const fleet = newFleet();
    const s = new Cluster(fleet, 's');
    const t = new Cluster(fleet, 't');
    new Link(fleet, 'l', {
      source: s,
      target: t,
      excludedLabels: ['team', 'example.com/*', 'Bad Key', '*'],
      excludedAnnotations: ['note.example.com/owner', 'argocd.argoproj.io/*', 'x/*/y'],
    });
    // WHEN validated
    const error = definitionError(fleet);
    // THEN exactly the invalid entries are reported, each with its field
    assert.deepEqual(error.problems, [
      'link fleet/l: excludedLabels entry "Bad Key" is not a key or a "prefix/*" pattern',
      'link fleet/l: excludedLabels entry "*" is not a key or a "prefix/*" pattern',
      'link fleet/l: excludedAnnotations entry "x/*/y" is not a key or a "prefix/*" pattern',
    ]);
  });

  test('an explicit export for a cluster that no link targets is reported', () => {
    // GIVEN an export from "east", but "east" is only a link source
    const fleet = newFleet();
    const east = new Cluster(fleet, 'east');
    const west = new Cluster(fleet, 'west');
    new Link(fleet, 'east-from-west', { source: east, target: west });
    new ExplicitExport(fleet, 'vendor', { cluster: east, namespace: 'ns', name: 'svc' });
    // THEN the export, its service and the fix are named
    assertSingleProblem(definitionError(fleet), 'explicit export fleet/vendor', 'no link has "east" as its target', 'ns/svc', 'add a Link');
  });

  test('an explicit export for a cluster of another fleet is reported', () => {
    const fleet = newFleet();
    const east = new Cluster(fleet, 'east');
    const west = new Cluster(fleet, 'west');
    new Link(fleet, 'l', { source: east, target: west });
    new ExplicitExport(fleet, 'vendor', { cluster: new Cluster(newFleet(), 'north'), namespace: 'ns', name: 'svc' });
    assertSingleProblem(definitionError(fleet), 'explicit export fleet/vendor', 'cluster "north" (fleet/north) is not defined in this fleet');
  });

  // Like links, exports are checked by the Cluster object, not just its name.
  test('an explicit export for a foreign cluster named like a fleet cluster is reported', () => {
    // GIVEN a fleet targeting "west", and an export whose cluster is another fleet's "west"
    const fleet = newFleet();
    const east = new Cluster(fleet, 'east');
    const west = new Cluster(fleet, 'west');
    new Link(fleet, 'l', { source: east, target: west });
    new ExplicitExport(fleet, 'vendor', { cluster: new Cluster(newFleet(), 'west'), namespace: 'ns', name: 'svc' });
    // THEN it is rejected like a link to that object would be
    assertSingleProblem(definitionError(fleet), 'explicit export fleet/vendor', 'not defined in this fleet');
  });

  test('an explicit export with an invalid namespace or name, or exported twice, is reported', () => {
    const fleet = newFleet();
    const east = new Cluster(fleet, 'east');
    const west = new Cluster(fleet, 'west');
    new Link(fleet, 'l', { source: east, target: west });
    new ExplicitExport(fleet, 'bad', { cluster: west, namespace: 'Bad_NS', name: 'svc.x' });
    new ExplicitExport(fleet, 'one', { cluster: west, namespace: 'ns', name: 'svc' });
    new ExplicitExport(fleet, 'two', { cluster: west, namespace: 'ns', name: 'svc' });
    const error = definitionError(fleet);
    assert.equal(error.problems.length, 3, error.message);
    assert.match(error.problems[0]!, /^explicit export fleet\/bad: namespace "Bad_NS" is not a DNS label/);
    assert.match(error.problems[1]!, /^explicit export fleet\/bad: service name "svc\.x" is not a DNS label/);
    assert.equal(error.problems[2], 'explicit export fleet/two: west/ns/svc is already exported by fleet/one');
  });

  test('a gateway port outside 1-65535 or not an integer is reported', () => {
    for (const port of [0, 65536, -1, 4143.5, Number.NaN]) {
      // GIVEN a target whose fixed gateway port is not a port number
      const fleet = newFleet();
      new Cluster(fleet, 'east', { gateway: { port } });
      // THEN the cluster and the port are named
      assertSingleProblem(definitionError(fleet), 'cluster fleet/east', `gateway.port ${port} is not a port number (1-65535)`);
    }
  });

  test('GIVEN a bad controlPlaneNamespace or trustRootExpiryWarningDays WHEN the spec is built THEN each is named', () => {
    for (const [props, problem] of [
      [{ controlPlaneNamespace: 'Linkerd_CP' }, 'controlPlaneNamespace "Linkerd_CP" is not a DNS label'],
      [{ trustRootExpiryWarningDays: -1 }, 'trustRootExpiryWarningDays -1 is not a whole number of days (0 or more)'],
      [{ trustRootExpiryWarningDays: 2.5 }, 'trustRootExpiryWarningDays 2.5 is not a whole number of days (0 or more)'],
    ] as const) {
      const fleet = newFleet();
      new Cluster(fleet, 'east', props);
      assertSingleProblem(definitionError(fleet), 'cluster fleet/east', problem);
    }
  });

  test('gateway ports 1 and 65535 are accepted', () => {
    const fleet = newFleet();
    new Cluster(fleet, 'a', { gateway: { port: 1 } });
    new Cluster(fleet, 'b', { gateway: { port: 65535 } });
    assert.deepEqual(fleet.toSpec().clusters.map((c) => c.gateway.port), [1, 65535]);
  });

  test('other cluster settings are checked too', () => {
    // GIVEN a cluster with a bad domain, empty context, bad gateway names, empty addresses and identity
    const fleet = newFleet();
    new Cluster(fleet, 'c', {
      clusterDomain: 'Cluster.Local',
      access: { context: '' },
      gateway: { namespace: 'Bad', name: '', addresses: [], identity: ' ' },
    });
    const error = definitionError(fleet);
    // THEN each is reported under the cluster
    assert.equal(error.problems.length, 6, error.message);
    for (const p of error.problems) assert.ok(p.startsWith('cluster fleet/c: '), p);
    for (const fragment of ['clusterDomain "Cluster.Local"', 'access.context is empty', 'gateway.namespace', 'gateway.name is empty', 'gateway.addresses is empty', 'gateway.identity is empty']) {
      assert.ok(error.problems.some((p) => p.includes(fragment)), `missing ${fragment}`);
    }
  });

  test('additionalPinnedServiceIPRanges: kept in the spec; needs pinnedServiceIPRange; each entry a CIDR block sharing no address with another block', () => {
    const fleet = newFleet();
    new Cluster(fleet, 'ok', { pinnedServiceIPRange: '10.96.0.0/24', additionalPinnedServiceIPRanges: ['10.100.0.0/24'] });
    assert.deepEqual(fleet.toSpec().clusters[0]!.additionalPinnedServiceIPRanges, ['10.100.0.0/24']);
    const noPrimary = newFleet();
    new Cluster(noPrimary, 'c', { additionalPinnedServiceIPRanges: ['10.100.0.0/24'] });
    assertSingleProblem(definitionError(noPrimary), 'cluster fleet/c: additionalPinnedServiceIPRanges needs pinnedServiceIPRange');
    const overlapping = newFleet();
    new Cluster(overlapping, 'c', { pinnedServiceIPRange: '10.96.0.0/24', additionalPinnedServiceIPRanges: ['10.96.0.128/25', 'nope'] });
    const error = definitionError(overlapping);
    assert.equal(error.problems.length, 2, error.message);
    assert.match(error.problems[0]!, /^cluster fleet\/c: additionalPinnedServiceIPRanges entry 10\.96\.0\.128\/25 overlaps the pinned block 10\.96\.0\.0\/24/);
    assert.match(error.problems[1]!, /^cluster fleet\/c: additionalPinnedServiceIPRanges entry .*nope/);
  });

  test('several problems at once are all listed, each naming its construct', () => {
    // GIVEN a fleet with five independent mistakes
    const fleet = newFleet();
    const east = new Cluster(fleet, 'east');
    const west = new Cluster(fleet, 'west', { gateway: { port: 70000 } });
    new Cluster(fleet, 'UPPER');
    new Link(fleet, 'loop', { source: west, target: west });
    new Link(fleet, 'bad-selector', { source: east, target: west, selector: {} });
    new ExplicitExport(fleet, 'orphan', { cluster: east, namespace: 'ns', name: 'svc' });

    // WHEN validated
    const error = definitionError(fleet);

    // THEN all of them are reported in one error
    assert.equal(error.problems.length, 5, error.message);
    assert.match(error.message, /^the fleet definition has 5 problems:/);
    const expected = [
      ['cluster fleet/west', 'gateway.port 70000'],
      ['cluster fleet/UPPER', 'not a DNS label'],
      ['link fleet/loop', 'cannot link to itself'],
      ['link fleet/bad-selector', 'the selector is empty'],
      ['explicit export fleet/orphan', 'no link has "east" as its target'],
    ];
    for (const [where, what] of expected) {
      assert.ok(
        error.problems.some((p) => p.startsWith(`${where}: `) && p.includes(what!)),
        `no problem for ${where} mentioning ${what}:\n${error.message}`,
      );
      assert.ok(error.message.includes(`.test.ts:`) && new RegExp(`  - \\S+:\\d+:\\d+: ${where}: `).test(error.message), `message does not list ${where} at its file:line:column`);
    }
  });
});
