import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import YAML from 'yaml';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { buildFleet } from '../../src/load/load-fleet.js';
import { runSynth } from '../../src/pipeline/run-synth.js';
import { argoCdAppProject, CLUSTER_SCOPED_KINDS, NAMESPACED_KINDS, namespacesInOutput } from '../../src/delivery/argocd-app-project.js';
import { argoCdApplicationFile, argoCdApplicationSet, unitFamilies } from '../../src/delivery/argocd-application-set.js';
import { ARGOCD_CM_COMPONENT_DIRS, ARGOCD_CM_PATCH_FILES, ARGOCD_CM_VALUES_FILES } from '../../src/delivery/delivery-files.js';
import { argoCdConfigMapChange, argoCdConfigMapData, ArgoCdConfigMapError, withoutEndpointExclusion } from '../../src/delivery/argocd-cm-change.js';
import { STOCK_ARGOCD_CM_FILE } from '../../src/delivery/stock-argocd-cm.js';
import { readTree } from '../../src/emit/write-output.js';
import { Cluster, FleetDefinitionError, GitOpsDelivery, Link, type Fleet } from '../../src/model/index.js';
import { observationRules } from '../../src/observe/observation-rbac.js';

/** The stock argocd-cm of Argo CD 3.6.0-dev, bundled unchanged from ../shared/argocd/ (see test/fixtures/crds/README.md). */
const stockText = (): string => readFileSync(STOCK_ARGOCD_CM_FILE, 'utf8');

interface Rule { apiGroups?: string[]; kinds?: string[]; selector?: string }
const rules = (text: string): Rule[] => YAML.parse(text) as Rule[];
const hidesEndpoints = (r: Rule): boolean => (r.kinds ?? []).some((k) => k === 'Endpoints' || k === 'EndpointSlice');

describe('argocd-cm change', () => {
  test('removes exactly the Endpoints/EndpointSlice rule and its comment, keeping every other rule and comment byte for byte', () => {
    // GIVEN the stock resource.exclusions
    const stock = argoCdConfigMapData(stockText())['resource.exclusions']!;
    assert.ok(rules(stock).some(hidesEndpoints), 'the stock file hides endpoints');
    // WHEN the change is computed
    const changed = argoCdConfigMapChange(argoCdConfigMapData(stockText()), 'all-endpoints');
    const exclusions = changed['resource.exclusions']!;
    // THEN no rule hides Endpoints or EndpointSlice, and every other rule is still there, in order
    assert.ok(!rules(exclusions).some(hidesEndpoints));
    assert.deepEqual(rules(exclusions), rules(stock).filter((r) => !hidesEndpoints(r)));
    assert.equal(rules(exclusions).length, rules(stock).length - 1);
    // AND the text is the stock text minus the rule's comment and its six lines
    const stockLines = stock.split('\n');
    const at = stockLines.findIndex((l) => l.startsWith('### Network resources'));
    assert.equal(exclusions, [...stockLines.slice(0, at), ...stockLines.slice(at + 7)].join('\n'));
    // AND only that key is set: a merge patch leaves the other argocd-cm keys alone
    assert.deepEqual(Object.keys(changed), ['resource.exclusions']);
  });

  test('the managed-endpoints-only variant also adds a resource.selectors rule for our label', () => {
    const changed = argoCdConfigMapChange(argoCdConfigMapData(stockText()), 'managed-endpoints-only');
    assert.ok(!rules(changed['resource.exclusions']!).some(hidesEndpoints));
    assert.deepEqual(rules(changed['resource.selectors']!), [
      { apiGroups: ['', 'discovery.k8s.io'], kinds: ['Endpoints', 'EndpointSlice'], selector: 'mirrorc.io/managed=true' },
    ]);
  });

  test('is idempotent, and refuses rules it cannot cut out without losing other exclusions', () => {
    const once = argoCdConfigMapChange(argoCdConfigMapData(stockText()), 'all-endpoints')['resource.exclusions']!;
    assert.equal(withoutEndpointExclusion(once), once);
    const mixed = "- apiGroups:\n  - ''\n  kinds:\n  - Endpoints\n  - Pod\n";
    assert.throws(() => withoutEndpointExclusion(mixed), (e: unknown) => e instanceof ArgoCdConfigMapError && /rule 1 .*edit it by hand/.test(e.message));
  });

  test('the committed delivery/argocd patches carry exactly the computed change', () => {
    const data = argoCdConfigMapData(stockText());
    for (const [file, variant] of [['argocd-cm-patch.yaml', 'all-endpoints'], ['argocd-cm-patch-managed-endpoints-only.yaml', 'managed-endpoints-only']] as const) {
      const patch = YAML.parse(readFileSync(`delivery/argocd/${file}`, 'utf8'));
      assert.deepEqual(patch.metadata, { name: 'argocd-cm', namespace: 'argocd' }, file);
      assert.deepEqual(patch.data, argoCdConfigMapChange(data, variant), file);
    }
  });

  test('the Helm values and the kustomize Component of each variant carry the same keys as its patch', () => {
    for (const variant of ['all-endpoints', 'managed-endpoints-only'] as const) {
      const patch = YAML.parse(readFileSync(`delivery/argocd/${ARGOCD_CM_PATCH_FILES[variant]}`, 'utf8'));
      // The argo-cd chart renders configs.cm into argocd-cm's data.
      assert.deepEqual(YAML.parse(readFileSync(`delivery/argocd/${ARGOCD_CM_VALUES_FILES[variant]}`, 'utf8')), { configs: { cm: patch.data } }, variant);
      const dir = `delivery/argocd/${ARGOCD_CM_COMPONENT_DIRS[variant]}`;
      const kustomization = YAML.parse(readFileSync(`${dir}/kustomization.yaml`, 'utf8'));
      assert.equal(kustomization.kind, 'Component');
      assert.deepEqual(kustomization.patches, [{ path: 'argocd-cm-patch.yaml' }]);
      assert.deepEqual(YAML.parse(readFileSync(`${dir}/argocd-cm-patch.yaml`, 'utf8')), patch, variant);
    }
  });
});

describe('Argo CD templates', () => {
  const spec = (argoCd: object, define?: (f: Fleet) => void) => {
    const { fleet } = buildFleet((f) => {
      const london = new Cluster(f, 'london');
      new Link(f, 'l', { source: london, target: new Cluster(f, 'paris') });
      define?.(f);
      new GitOpsDelivery(f, 'delivery', { repoUrl: 'https://git.example/fleet.git', argoCd });
    });
    return fleet.toSpec();
  };

  test('every Application syncs only what is OutOfSync, diffs in the controller, regenerates only for its own folders and retries a failed sync with backoff', () => {
    const fleet = spec({});
    const template = (argoCdApplicationSet(fleet.delivery!, fleet.delivery!.argoCd!) as any).spec.template;
    assert.deepEqual(template.metadata.annotations, { 'argocd.argoproj.io/manifest-generate-paths': '{{.generatePaths}}' });
    assert.deepEqual(template.spec.syncPolicy.syncOptions, ['ServerSideApply=true', 'ApplyOutOfSyncOnly=true']);
    assert.deepEqual(template.spec.syncPolicy.retry, { limit: 5, backoff: { duration: '10s', factor: 2, maxDuration: '3m' }, refresh: true });
    assert.deepEqual(template.spec.syncPolicy.automated, { prune: true, selfHeal: true });
  });

  test('one Application per unit family, whose plain directory source covers every shard of the family by a glob that a split does not change', () => {
    const fleet = spec({});
    const template = (argoCdApplicationSet(fleet.delivery!, fleet.delivery!.argoCd!) as any).spec.template;
    assert.equal(template.spec.sources, undefined);
    assert.deepEqual(template.spec.source, {
      repoURL: 'https://git.example/fleet.git', targetRevision: 'HEAD', path: '{{.folder}}',
      directory: { recurse: true, include: '{{.include}}', exclude: '{kustomization.yaml,*/kustomization.yaml}' },
    });
    // The families of a cluster: base always, each family once whatever its shard count
    assert.deepEqual(unitFamilies(['from-paris.3', 'base', 'from-paris', 'shared', 'from-paris.1', 'from-paris.2', 'from-rome']), ['base', 'from-paris', 'from-rome', 'shared']);
    assert.deepEqual(unitFamilies([]), ['base']);
    // The parameters of from-paris are the same whatever its shard count: a split changes no Application
    assert.deepEqual(argoCdApplicationFile(fleet.delivery!, fleet.delivery!.argoCd!, 'london', 'from-paris'), {
      name: 'mirrorc-london.from-paris', cluster: 'london', family: 'from-paris', destination: 'london', folder: 'dist/london',
      include: '{from-paris/*,from-paris.[0-9]*/*}', generatePaths: 'from-paris;from-paris.*/*;from-paris.*/*/*',
    });
    assert.deepEqual(argoCdApplicationFile(fleet.delivery!, fleet.delivery!.argoCd!, 'london', 'base'), {
      name: 'mirrorc-london.base', cluster: 'london', family: 'base', destination: 'london', folder: 'dist/london', include: 'base/*', generatePaths: 'base',
    });
  });

  test('clusterNames maps fleet clusters to Argo CD names in the destinations; unmapped clusters keep theirs', () => {
    const fleet = spec({ clusterNames: { london: 'prod-eu-west-1', paris: 'paris' } });
    assert.deepEqual(fleet.delivery!.argoCd!.clusterNames, { london: 'prod-eu-west-1' });
    // Each Application's generator file names its Argo CD cluster; the template sends the Application there.
    const set = argoCdApplicationSet(fleet.delivery!, fleet.delivery!.argoCd!) as any;
    assert.equal(set.spec.template.spec.destination.name, '{{.destination}}');
    assert.equal((argoCdApplicationFile(fleet.delivery!, fleet.delivery!.argoCd!, 'london', 'from-paris') as any).destination, 'prod-eu-west-1');
    assert.equal((argoCdApplicationFile(fleet.delivery!, fleet.delivery!.argoCd!, 'paris', 'base') as any).destination, 'paris');
    const project = argoCdAppProject(fleet.delivery!, fleet.delivery!.argoCd!, ['london', 'paris']) as any;
    assert.deepEqual(project.spec.destinations, [{ name: 'prod-eu-west-1', namespace: '*' }, { name: 'paris', namespace: '*' }]);
    // Without a mapping every cluster keeps its own name.
    const plain = spec({});
    assert.equal((argoCdApplicationFile(plain.delivery!, plain.delivery!.argoCd!, 'london', 'base') as any).destination, 'london');
  });

  test('a wrong clusterNames mapping is reported with what to do', () => {
    assert.throws(() => spec({ clusterNames: { berlin: 'x', london: '{{ .path }}', paris: 'london' } }), (e: unknown) => {
      assert.ok(e instanceof FleetDefinitionError);
      const text = e.problems.join('\n');
      assert.match(text, /argoCd.clusterNames names "berlin", which is not a cluster of this fleet \(london, paris\)/);
      assert.match(text, /argoCd.clusterNames.london "\{\{ .path \}\}" is not an Argo CD cluster name/);
      return true;
    });
    assert.throws(() => spec({ clusterNames: { paris: 'london' } }), /sends london and paris to the same Argo CD cluster "london"/);
  });

  test('the AppProject allows the cluster-scoped objects mirrorc writes by name only', () => {
    const fleet = spec({});
    const tree = new Map([
      ['london/namespace-shop.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n'],
      ['london/shop/service-namespace-x.yaml', 'apiVersion: v1\nkind: Service\nmetadata:\n  name: namespace-x\n  namespace: shop\n'],
    ]);
    assert.deepEqual(namespacesInOutput(tree), ['shop']);
    const project = argoCdAppProject(fleet.delivery!, fleet.delivery!.argoCd!, ['london', 'paris'], namespacesInOutput(tree)) as any;
    assert.deepEqual(project.spec.clusterResourceWhitelist, [
      { group: '', kind: 'Namespace', name: 'mirrorc-system' },
      { group: '', kind: 'Namespace', name: 'shop' },
      { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'mirrorc-observer' },
      { group: 'rbac.authorization.k8s.io', kind: 'ClusterRoleBinding', name: 'mirrorc-observer' },
    ]);
  });
});

describe('delivery output of synth', () => {
  const withDelivery = (argoCd: { configMapChangeApplied?: boolean } | undefined) => (fleet: Fleet): void => {
    const a = new Cluster(fleet, 'alpha');
    const b = new Cluster(fleet, 'beta');
    new Link(fleet, 'alpha-from-beta', { source: a, target: b });
    new GitOpsDelivery(fleet, 'delivery', { repoUrl: 'https://git.example.com/fleet.git', ...(argoCd ? { argoCd } : {}), flux: {} });
  };

  test('Argo CD delivery without the argocd-cm confirmation warns; with it, or Flux only, it does not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mirrorc-delivery-'));
    try {
      const run = (define: (f: Fleet) => void) =>
        runSynth({ define, lockFile: join(dir, 'lock.json'), outDir: join(dir, 'dist'), offline: true, log: () => {} });
      // WHEN Argo CD delivery is asked for without confirming the argocd-cm change
      const unconfirmed = await run(withDelivery({}));
      // THEN synth writes and warns, naming the construct, the patch file and the setting
      assert.equal(unconfirmed.exitCode, ExitCode.OK);
      const warning = unconfirmed.warnings.find((w) => w.includes('argocd-cm'));
      assert.ok(warning, unconfirmed.warnings.join('\n'));
      assert.match(warning, /delivery fleet\/delivery: .*Endpoints and EndpointSlices.*delivery\/argocd\/argocd-cm-patch\.yaml.*configMapChangeApplied: true/);
      // AND delivery/ sits beside dist/, never inside it
      assert.deepEqual([...readTree(join(dir, 'delivery')).keys()], [
        'argocd/applicationset-mirrorc.yaml', 'argocd/appproject-mirrorc.yaml',
        'argocd/argocd-cm-patch-managed-endpoints-only.yaml', 'argocd/argocd-cm-patch.yaml',
        'argocd/argocd-cm-values-managed-endpoints-only.yaml', 'argocd/argocd-cm-values.yaml',
        'argocd/kustomize/all-endpoints/argocd-cm-patch.yaml', 'argocd/kustomize/all-endpoints/kustomization.yaml',
        'argocd/kustomize/managed-endpoints-only/argocd-cm-patch.yaml', 'argocd/kustomize/managed-endpoints-only/kustomization.yaml',
        'argocd/applications/alpha.base.yaml', 'argocd/applications/beta.base.yaml',
        ...['alpha', 'beta'].flatMap((c) => [
          `flux/${c}/kustomization-mirrorc.yaml`, `flux/${c}/root/kustomization-mirrorc-units.yaml`, `flux/${c}/root/kustomization.yaml`,
          `flux/${c}/units/kustomization-mirrorc-base.yaml`,
        ]),
        // no service of beta is observed yet, so alpha has no from-beta unit: only the base
        'flux/alpha/units/kustomization.yaml', 'flux/beta/units/kustomization.yaml',
      ].sort());
      assert.deepEqual([...new Set([...readTree(join(dir, 'dist')).keys()].map((p) => p.split('/')[0]))], ['alpha', 'beta']);
      // WHEN it is confirmed, or only Flux is used
      for (const define of [withDelivery({ configMapChangeApplied: true }), withDelivery(undefined)]) {
        const result = await run(define);
        // THEN there is no such warning, and a Flux-only delivery has no argocd/ folder
        assert.ok(!result.warnings.some((w) => w.includes('argocd-cm')), result.warnings.join('\n'));
      }
      assert.ok(![...readTree(join(dir, 'delivery')).keys()].some((p) => p.startsWith('argocd/')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the committed delivery/ is exactly what the example fleet compiles to, and check notices a hand edit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mirrorc-delivery-'));
    try {
      cpSync('dist', join(dir, 'dist'), { recursive: true });
      cpSync('delivery', join(dir, 'delivery'), { recursive: true });
      cpSync('clusters/fleet.lock.json', join(dir, 'lock.json'));
      const run = (mode: 'write' | 'check') =>
        runSynth({ fleetFile: 'clusters/fleet.ts', lockFile: join(dir, 'lock.json'), outDir: join(dir, 'dist'), offline: true, mode, log: () => {}, print: () => {} });
      assert.equal((await run('check')).exitCode, ExitCode.OK);
      rmSync(join(dir, 'delivery/flux/paris'), { recursive: true });
      assert.equal((await run('check')).exitCode, ExitCode.CHECK_FAILED);
      assert.equal((await run('write')).exitCode, ExitCode.OK);
      assert.deepEqual(readTree(join(dir, 'delivery')), readTree('delivery'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an invalid delivery is reported with the construct and what to do, before anything runs', () => {
    const { fleet } = buildFleet((f) => {
      const a = new Cluster(f, 'alpha');
      new Link(f, 'l', { source: a, target: new Cluster(f, 'beta') });
      new GitOpsDelivery(f, 'delivery', { repoUrl: ' ', flux: { interval: 'often' } });
      new GitOpsDelivery(f, 'again', { repoUrl: 'https://x/y.git' });
    });
    assert.throws(() => fleet.toSpec(), (e: unknown) => {
      assert.ok(e instanceof FleetDefinitionError);
      const text = e.problems.join('\n');
      assert.match(text, /delivery fleet\/again: the fleet already has a GitOpsDelivery \(fleet\/delivery\); keep one/);
      assert.match(text, /delivery fleet\/delivery: repoUrl " " is not a repository URL/);
      assert.match(text, /delivery fleet\/delivery: flux.interval "often" is not a duration/);
      assert.match(text, /delivery fleet\/again: neither argoCd nor flux is set/);
      return true;
    });
  });
});

describe('reader RBAC in dist/', () => {
  const parse = (path: string): { kind: string; apiVersion: string; rules?: unknown } => YAML.parse(readFileSync(path, 'utf8'));

  test('each observed cluster gets a ClusterRole with exactly the observation rules of its roles', () => {
    // london is only a source, paris only a target, east and west both (example fleet, delivered by Flux: its sources may list Kustomizations, for status)
    const expected = { london: { source: true, target: false, mcsSource: true, fluxSource: true }, paris: { source: false, target: true }, east: { source: true, target: true, fluxSource: true }, west: { source: true, target: true, fluxSource: true }, oslo: { source: false, target: true, mcsTarget: true } };
    for (const [cluster, roles] of Object.entries(expected)) {
      const role = parse(`dist/${cluster}/base/clusterrole-mirrorc-observer.yaml`);
      assert.deepEqual(role.rules, observationRules(roles), cluster);
    }
    const trustRoots = { apiGroups: [''], resources: ['configmaps'], resourceNames: ['linkerd-identity-trust-roots'], verbs: ['get'] };
    assert.deepEqual(parse('dist/paris/base/clusterrole-mirrorc-observer.yaml').rules, [
      trustRoots,
      { apiGroups: [''], resources: ['services'], verbs: ['get', 'list'] },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list'] },
    ]);
    // Least privilege: only oslo, the target of an MCS link, may list ServiceExports.
    for (const [cluster] of Object.entries(expected)) {
      const listsServiceExports = JSON.stringify(parse(`dist/${cluster}/base/clusterrole-mirrorc-observer.yaml`).rules).includes('serviceexports');
      assert.equal(listsServiceExports, cluster === 'oslo', cluster);
      // ...and only london, the source of an MCS link, may list ServiceImports (one another controller owns is never taken over).
      const listsServiceImports = JSON.stringify(parse(`dist/${cluster}/base/clusterrole-mirrorc-observer.yaml`).rules).includes('serviceimports');
      assert.equal(listsServiceImports, cluster === 'london', cluster);
    }
    assert.deepEqual(parse('dist/east/base/clusterrole-mirrorc-observer.yaml').rules, [
      trustRoots,
      { apiGroups: [''], resources: ['namespaces'], verbs: ['list'] },
      { apiGroups: [''], resources: ['services'], verbs: ['get', 'list'] },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list'] },
      { apiGroups: ['kustomize.toolkit.fluxcd.io'], resources: ['kustomizations'], verbs: ['list'] },
    ]);
    // Only sources list Kustomizations (status compares the revision Flux applied there), and only in a fleet delivered by Flux.
    for (const [cluster, roles] of Object.entries(expected)) {
      assert.equal(JSON.stringify(parse(`dist/${cluster}/base/clusterrole-mirrorc-observer.yaml`).rules).includes('kustomizations'), roles.source, cluster);
    }
    assert.ok(!JSON.stringify(observationRules({ source: true, target: true })).includes('kustomizations'));
  });

  test('the AppProject allows every kind that dist/ holds, with the right scope, and every cluster-scoped name', () => {
    const project = YAML.parse(readFileSync('delivery/argocd/appproject-mirrorc.yaml', 'utf8'));
    for (const [path, text] of readTree('dist')) {
      if (path.endsWith('kustomization.yaml')) continue;
      // Every object of the file: a mirror's file holds its Service, Endpoints and EndpointSlices as documents.
      for (const document of YAML.parseAllDocuments(text)) {
        const object = document.toJS();
        const group = object.apiVersion.includes('/') ? object.apiVersion.split('/')[0] : '';
        const allowed = object.metadata.namespace ? NAMESPACED_KINDS : CLUSTER_SCOPED_KINDS;
        assert.ok(allowed.some((k) => k.group === group && k.kind === object.kind), `${path}: ${group}/${object.kind}`);
        if (!object.metadata.namespace) {
          assert.ok(project.spec.clusterResourceWhitelist.some((k: any) => k.group === group && k.kind === object.kind && k.name === object.metadata.name), `${path}: ${object.metadata.name} allowed by name`);
        }
      }
    }
  });
});
