/**
 * Safety: what a target team sets on its Services cannot change how the source cluster's tools or mesh
 * treat the mirror beyond the documented copied metadata (src/contract/metadata-policy.ts), and copied
 * values arrive byte for byte. Against real kube-apiservers: "west" exports hostile Services, the CLI
 * synthesizes "east", and dist/east is server-side applied to east with kubectl (kustomize, go-yaml)
 * and read back.
 *
 * Every case asserts the exit code, the message, the --report file, and that dist/ and the lock are
 * the expected complete tree (by hash: the tree an offline synth from the written lock reproduces, or
 * the previous tree for a failed run).
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import YAML from 'yaml';
import { stringifyYaml } from '../../src/emit/yaml-writer.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { kubeFleetForTests, type KubeFleet } from '../harness/kube-fleet.js';
import { installGateway, ensureNamespace, applyStatefulService, unitFree } from '../integration/support.js';
import { assertNoStackTrace, distObjects, SafetyRepo, type CliRun } from './support.js';

const SOURCE = 'east';
const TARGET = 'west';
const NS = 'shop';
const EXPORTED = { 'mirror.linkerd.io/exported': 'true' };
/** Kept on every hostile Service: the team's own keys, which must arrive. */
const OWN = { 'team.example.com/owner': 'team-a' };

const FLEET = `
  const east = new Cluster(fleet, '${SOURCE}', { pinnedServiceIPRange: '10.96.0.0/24' });
  const west = new Cluster(fleet, '${TARGET}');
  new Link(fleet, 'east-from-west', { source: east, target: west, remoteDiscoveryCredentials: { provided: 'external' }, globalServices: true __EXTRA__ });
`;

/** One forbidden key family, carried by one gateway-mode Service of the target. */
interface FamilyCase {
  readonly family: string;
  readonly service: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

const FAMILIES: readonly FamilyCase[] = [
  {
    family: 'multicluster.linkerd.io/* (flat and federated discovery keys) on a gateway-mode export',
    service: 'fam-multicluster',
    labels: { 'multicluster.linkerd.io/remote-discovery': 'other', 'multicluster.linkerd.io/remote-service': 'payments' },
    annotations: { 'multicluster.linkerd.io/remote-discovery': 'payments@other', 'multicluster.linkerd.io/local-discovery': 'payments' },
  },
  {
    family: 'mirror.linkerd.io* (Linkerd\'s mirror keys)',
    service: 'fam-mirror',
    labels: { 'mirror.linkerd.io/cluster-name': 'elsewhere', 'mirror.linkerd.io/headless-mirror-svc-name': 'x', 'mirror.linkerd.io-extra': 'y' },
    annotations: { 'mirror.linkerd.io/remote-svc-fq-name': 'evil.shop.svc.cluster.local', 'mirror.linkerd.io/remote-gateway-identity': 'evil.identity' },
  },
  {
    family: 'mirrorc.io/* (mirrorc\'s own keys: managed, global-service)',
    service: 'fam-mirrorc',
    labels: { 'mirrorc.io/managed': 'false', 'mirrorc.io/global-service': 'evil-global', 'mirrorc.io/global-cluster': 'evil' },
    annotations: { 'mirrorc.io/note': 'x', 'team.mirrorc.io/owner': 'y' },
  },
  {
    family: 'linkerd.io/* and *.linkerd.io/* (Linkerd\'s own bookkeeping)',
    service: 'fam-linkerd',
    labels: { 'linkerd.io/control-plane-ns': 'linkerd', 'linkerd.io/extension': 'viz' },
    annotations: { 'viz.linkerd.io/external-prometheus': 'http://evil' },
  },
  {
    family: 'helm.sh/*, meta.helm.sh/* and app.kubernetes.io/managed-by (Helm hooks and ownership)',
    service: 'fam-helm',
    labels: { 'helm.sh/chart': 'payments-1.2.3', 'app.kubernetes.io/managed-by': 'Helm' },
    annotations: {
      'helm.sh/hook': 'pre-install', 'helm.sh/hook-weight': '-5', 'helm.sh/hook-delete-policy': 'before-hook-creation',
      'helm.sh/resource-policy': 'keep', 'meta.helm.sh/release-name': 'payments', 'meta.helm.sh/release-namespace': NS,
    },
  },
  {
    family: 'config.kubernetes.io/*, internal.config.kubernetes.io/*, kustomize.config.k8s.io/*, config.k8s.io/*, cli-utils.sigs.k8s.io/* (kustomize and kpt)',
    service: 'fam-kustomize',
    labels: { 'config.kubernetes.io/local-config': 'true' },
    annotations: {
      'config.kubernetes.io/local-config': 'true', 'internal.config.kubernetes.io/path': 'svc.yaml', 'kustomize.config.k8s.io/behavior': 'replace',
      'config.k8s.io/owning-inventory': 'inventory-1', 'cli-utils.sigs.k8s.io/on-remove': 'keep',
    },
  },
  {
    family: 'argoproj.io and *.argoproj.io (Argo CD tracking, sync options, hooks, deep links) and app.kubernetes.io/instance',
    service: 'fam-argocd',
    labels: { 'app.kubernetes.io/instance': 'payments', 'argocd.argoproj.io/instance': 'payments' },
    annotations: {
      'argocd.argoproj.io/tracking-id': 'payments:/Service:shop/fam-argocd', 'argocd.argoproj.io/sync-options': 'Prune=false',
      'argocd.argoproj.io/hook': 'PreSync', 'link.argocd.argoproj.io/external-link': 'https://evil.example', 'notifications.argoproj.io/subscribe.on-sync.slack': 'x',
    },
  },
  {
    family: 'fluxcd.io and *.fluxcd.io (Flux ownership and per-object settings)',
    service: 'fam-flux',
    labels: { 'kustomize.toolkit.fluxcd.io/name': 'apps', 'kustomize.toolkit.fluxcd.io/namespace': 'flux-system', 'helm.toolkit.fluxcd.io/name': 'rel' },
    annotations: { 'kustomize.toolkit.fluxcd.io/prune': 'disabled', 'kustomize.toolkit.fluxcd.io/ssa': 'Ignore', 'reconcile.fluxcd.io/requestedAt': 'now' },
  },
  {
    family: 'service.kubernetes.io/* and endpointslice.kubernetes.io/* (kube-proxy and endpoint controllers)',
    service: 'fam-service-proxy',
    labels: { 'service.kubernetes.io/service-proxy-name': 'nobody', 'service.kubernetes.io/headless': '', 'endpointslice.kubernetes.io/managed-by': 'evil', 'endpointslice.kubernetes.io/skip-mirror': 'false' },
    annotations: { 'service.kubernetes.io/topology-mode': 'Auto', 'service.kubernetes.io/topology-aware-hints': 'Auto' },
  },
  {
    family: 'kubernetes.io, *.kubernetes.io, k8s.io, *.k8s.io (reserved: kubectl, ExternalDNS, cloud load balancers, topology)',
    service: 'fam-kubernetes',
    labels: { 'topology.kubernetes.io/zone': 'eu-1a', 'kubernetes.io/service-name': 'evil', 'gateway.networking.k8s.io/gateway-name': 'gw' },
    annotations: {
      'external-dns.alpha.kubernetes.io/hostname': 'payments.example.com', 'service.beta.kubernetes.io/aws-load-balancer-type': 'nlb',
      'kubectl.kubernetes.io/default-container': 'app',
    },
  },
  {
    family: 'k14s.io and cattle.io (kapp and Rancher ownership)',
    service: 'fam-kapp',
    labels: { 'kapp.k14s.io/app': '1234', 'kapp.k14s.io/association': 'v1.abc', 'objectset.rio.cattle.io/hash': 'abc' },
    annotations: { 'kapp.k14s.io/update-strategy': 'always-replace', 'objectset.rio.cattle.io/id': 'x' },
  },
];

/**
 * Annotation values that kustomize cannot carry (NEL, U+2028/9 become spaces; DEL, C1, U+FFFE/F fail the
 * build): never copied, each with a warning. (test/unit/yaml-writer.test.ts and the last case here show the
 * writer itself writes them exactly for Go's readers.)
 */
const UNDELIVERABLE_ANNOTATIONS: Readonly<Record<string, string>> = {
  'exact.example.com/nel': 'before\u0085after',
  'exact.example.com/line-separator': 'x\u2028y',
  'exact.example.com/paragraph-separator': 'x\u2029y',
  'exact.example.com/c1': 'c1\u0080\u0090\u009f',
  'exact.example.com/del': 'del\u007f',
  'exact.example.com/noncharacters': 'u+fffe \ufffe u+ffff \uffff',
};

/** Annotation values that must arrive byte for byte: line breaks YAML folds, characters go-yaml needs escaped, YAML-ambiguous scalars. */
const EXACT_ANNOTATIONS: Readonly<Record<string, string>> = {
  'exact.example.com/bom': '\ufeffbom and b\ufeffom',
  'exact.example.com/c0': 'nul\u0000 soh\u0001 bell\u0007 esc\u001b[0m vt\u000b ff\u000c',
  'exact.example.com/crlf': 'line one\r\nline two\r\n',
  'exact.example.com/tabs': '\tleading and trailing tab\t',
  'exact.example.com/spaces': '  leading and trailing spaces  ',
  'exact.example.com/blank-line': 'a long line, then a line holding one space:\n \nand the rest',
  'exact.example.com/multi-line': 'first line of a long value\nsecond line\n\nafter an empty line\n',
  'exact.example.com/quotes': 'she said "yes" and \'no\' \\ backslash',
  'exact.example.com/empty': '',
  'exact.example.com/yes': 'yes',
  'exact.example.com/off': 'Off',
  'exact.example.com/tilde': '~',
  'exact.example.com/null': 'NULL',
  'exact.example.com/octal': '0o12',
  'exact.example.com/hex': '0x1F',
  'exact.example.com/exp': '1e3',
  'exact.example.com/underscore': '1_000',
  'exact.example.com/underscore-float': '5E49_',
  'exact.example.com/leading-zero': '012',
  'exact.example.com/inf': '.inf',
  'exact.example.com/timestamp': '2001-12-14t21:59:43.10-05:00',
  'exact.example.com/sexagesimal': '190:20:30',
  'exact.example.com/indicators': '- x',
  'exact.example.com/colon': ': x',
  'exact.example.com/mapping': 'a: b',
  'exact.example.com/comment': '# not a comment',
  'exact.example.com/flow': '{a: 1}',
  'exact.example.com/seq': '[1, 2]',
  'exact.example.com/anchor': '&a',
  'exact.example.com/alias': '*a',
  'exact.example.com/tag': '!!str x',
  'exact.example.com/block': '|',
  'exact.example.com/directive': '%YAML 1.1',
  'exact.example.com/document': '---',
  'exact.example.com/backtick': '`x`',
  'exact.example.com/at': '@x',
  'exact.example.com/template': '{{ .Values.x }}',
  'exact.example.com/unicode': 'é 😀 \u00a0 \u3000',
};

/** YAML-ambiguous label keys and values (valid for the API server). */
const AMBIGUOUS_LABELS: Readonly<Record<string, string>> = {
  yes: 'y', on: 'n', null: 'true', true: 'NULL', '1e3': '0x1F', '012': '1_000', '0x1F': '012', off: '2001-12-14', y: '0o12', n: '1e3', 'ambiguous.example.com/empty': '', 'ambiguous.example.com/underscore-hex': '0_x1F', 'ambiguous.example.com/underscore-int': '1_2_3',
};

describe('safety: the metadata policy and exact values against real API servers', () => {
  let fleet: KubeFleet | undefined;
  const repo = new SafetyRepo();
  let run: CliRun;
  /** dist/ + lock as an offline synth from the written lock reproduces them. */
  let replayHash: string;
  /** The target's Services as its API server stores them, by name. */
  const targetServices = new Map<string, any>();
  let kubeconfig: string;

  /** A Service in west, created with kubectl from JSON (exact values). */
  const applyTargetService = async (name: string, labels: Record<string, string>, annotations: Record<string, string>, extra: object = {}): Promise<void> => {
    await fleet!.kubectl(TARGET, ['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: NS, labels, annotations },
      spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 8080 }], ...extra },
    }));
  };

  const live = async (kind: string, name: string): Promise<any> =>
    JSON.parse(await fleet!.kubectl(SOURCE, ['get', kind, name, '-n', NS, '-o', 'json']));

  // `path` is `<namespace>/<kind>-<name>.yaml`: the object, found in whichever delivery unit folder and mirror's file holds it (docs/delivery-units.md).
  const distObject = (path: string): any => {
    const text = distObjects(repo.outDir).get(`${SOURCE}/${path}`);
    assert.ok(text !== undefined, `${path}: no such object in dist/${SOURCE}`);
    return YAML.parse(text);
  };

  before(async (t) => {
    fleet = await kubeFleetForTests(t as never, [SOURCE, TARGET], { readerRules: observationRules({ source: true, target: true }) });
    if (!fleet) return;
    kubeconfig = fleet.kubeconfig('reader');
    await installGateway(fleet, TARGET, '203.0.113.20');
    await ensureNamespace(fleet, SOURCE, NS);
    await ensureNamespace(fleet, TARGET, NS);
    // GIVEN west exports one Service per forbidden family, one with exact-value annotations and ambiguous labels,
    // a flat-mode, a federated and a StatefulSet Service, each also carrying the team's own keys
    for (const f of FAMILIES) await applyTargetService(f.service, { ...OWN, ...f.labels, ...EXPORTED }, { ...OWN, ...f.annotations });
    await applyTargetService('exact', { ...OWN, ...AMBIGUOUS_LABELS, ...EXPORTED }, { ...OWN, ...EXACT_ANNOTATIONS, ...UNDELIVERABLE_ANNOTATIONS });
    await applyTargetService('flat', { ...OWN, 'mirror.linkerd.io/exported': 'remote-discovery', 'multicluster.linkerd.io/remote-discovery': 'other', 'multicluster.linkerd.io/remote-service': 'payments' },
      { ...OWN, 'multicluster.linkerd.io/remote-discovery': 'payments@other' });
    await applyTargetService('fed', { ...OWN, 'mirror.linkerd.io/federated': 'member', 'multicluster.linkerd.io/remote-discovery': 'other' },
      { ...OWN, 'multicluster.linkerd.io/remote-discovery': 'payments@other', 'multicluster.linkerd.io/local-discovery': 'payments', 'helm.sh/hook': 'pre-install' });
    await applyStatefulService(fleet, TARGET, NS, 'kafka', 2, { ...OWN, ...EXPORTED, 'helm.sh/chart': 'kafka-1', 'argocd.argoproj.io/instance': 'kafka', 'multicluster.linkerd.io/remote-discovery': 'other' });
    for (const item of JSON.parse(await fleet.kubectl(TARGET, ['get', 'services', '-n', NS, '-o', 'json'])).items) targetServices.set(item.metadata.name, item);

    // WHEN synth runs (the real CLI, with --report)
    repo.writeFleet(FLEET.replace('__EXTRA__', ''));
    run = await repo.run(['synth', '--kubeconfig', kubeconfig]);

    // (the expected new state: an offline synth from the written lock, in a fresh repository, writes the same tree)
    const replay = new SafetyRepo();
    try {
      replay.writeFleet(FLEET.replace('__EXTRA__', ''));
      cpSync(repo.lockFile, replay.lockFile);
      const r = await replay.run(['synth', '--offline']);
      assert.equal(r.code, 0, r.stderr);
      replayHash = replay.hash();
    } finally {
      replay.remove();
    }
    // AND dist/east is server-side applied to east with kubectl's kustomize
    if (run.code === 0) await fleet.kubectl(SOURCE, ['apply', '--server-side', '--field-manager=mirrorc', '-k', join(repo.outDir, SOURCE)]);
  });

  after(async () => {
    await fleet?.stop();
    repo.remove();
  });

  /** The run succeeded, said so, reported it, and left exactly the new complete tree. */
  const assertSucceeded = (): void => {
    assert.equal(run.code, 0, run.stderr);
    assertNoStackTrace(run.stderr + run.stdout);
    assert.doesNotMatch(run.stderr, /^error/m);
    assert.equal(run.report.exitCode, 0);
    assert.equal(run.report.error, null);
    assert.equal(run.report.command, 'synth');
    const east = run.report.sources.find((s: { cluster: string }) => s.cluster === SOURCE);
    assert.equal(east.compiled, true);
    assert.equal(east.reachable, true);
    assert.equal(repo.hash(), replayHash, 'dist/ and the lock are the complete tree the lock compiles to');
  };

  /** No label or annotation of `hostile` on the object with the target's value (a key mirrorc writes itself keeps mirrorc's value). */
  const assertNone = (object: any, hostile: Readonly<Record<string, string>>, where: string): void => {
    for (const [k, v] of Object.entries(hostile)) {
      assert.notEqual(object.metadata.labels?.[k], v, `${where}: label ${k}`);
      assert.notEqual(object.metadata.annotations?.[k], v, `${where}: annotation ${k}`);
      if (!k.startsWith('mirror.linkerd.io') && !['mirrorc.io/managed', 'endpointslice.kubernetes.io/managed-by', 'endpointslice.kubernetes.io/skip-mirror', 'kubernetes.io/service-name'].includes(k)) {
        assert.equal(object.metadata.labels?.[k], undefined, `${where}: label ${k}`);
        assert.equal(object.metadata.annotations?.[k], undefined, `${where}: annotation ${k}`);
      }
    }
  };

  for (const f of FAMILIES) {
    test(`GIVEN a target Service carrying ${f.family} WHEN synth runs and dist is server-side applied THEN no key of the family reaches the mirror and the team's own keys do`, async (t) => {
      if (!fleet) return t.skip('no kube-apiserver');
      assertSucceeded();
      const mirror = `${f.service}-${TARGET}`;
      // THEN the gateway-mode mirror was written: its file (named after its Service), listed as added in the report, holds its Service, Endpoints and EndpointSlice
      const added: string[] = unitFree(run.report.sources.find((s: { cluster: string }) => s.cluster === SOURCE).added);
      assert.ok(added.includes(`${NS}/service-${mirror}.yaml`), `${NS}/service-${mirror}.yaml in ${added.join(', ')}`);
      const files = [`${NS}/service-${mirror}.yaml`, `${NS}/endpoints-${mirror}.yaml`, `${NS}/endpointslice-${mirror}-ipv4.yaml`];
      const mirrorFile = YAML.parseAllDocuments(readFileSync(join(repo.outDir, SOURCE, `from-${TARGET}`, NS, `service-${mirror}.yaml`), 'utf8')).map((d) => d.toJS());
      assert.deepEqual(mirrorFile.map((o) => `${o.kind}/${o.metadata.name}`), [`Service/${mirror}`, `Endpoints/${mirror}`, `EndpointSlice/${mirror}-ipv4`]);
      // AND none of them carries a key of the family; the Service carries the team's keys and ours
      for (const file of files) {
        assertNone(distObject(file), f.labels, file);
        assertNone(distObject(file), f.annotations, file);
      }
      const svc = distObject(files[0]!);
      assert.equal(svc.metadata.labels['team.example.com/owner'], 'team-a');
      assert.equal(svc.metadata.annotations['team.example.com/owner'], 'team-a');
      assert.equal(svc.metadata.labels['mirror.linkerd.io/cluster-name'], TARGET);
      assert.equal(svc.metadata.annotations['mirror.linkerd.io/remote-svc-fq-name'], `${f.service}.${NS}.svc.cluster.local`);
      assert.equal(svc.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'], undefined, 'kubectl\'s record on the target is not copied');
      assert.ok(targetServices.get(f.service).metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'], 'the target has one');
      // AND the live objects in east (applied with kustomize, which keeps them all) have exactly the written metadata
      for (const [kind, name] of [['service', mirror], ['endpoints', mirror], ['endpointslice', `${mirror}-ipv4`]] as const) {
        const got = await live(kind, name);
        assertNone(got, { ...f.labels, ...f.annotations }, `live ${kind} ${name}`);
        const want = distObject(`${NS}/${kind}-${name}.yaml`);
        assert.deepEqual(got.metadata.labels, want.metadata.labels, `live ${kind} labels`);
        assert.deepEqual(got.metadata.annotations ?? {}, want.metadata.annotations ?? {}, `live ${kind} annotations`);
      }
    });
  }

  test('GIVEN a gateway-mode export carrying multicluster.linkerd.io/remote-discovery WHEN synth runs THEN its mirror is not turned into anything flat: it gets the gateway as endpoints and no discovery key', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    assertSucceeded();
    const mirror = `fam-multicluster-${TARGET}`;
    const svc = await live('service', mirror);
    assert.deepEqual(Object.keys(svc.metadata.labels).filter((k) => k.startsWith('multicluster.linkerd.io')), []);
    assert.deepEqual(Object.keys(svc.metadata.annotations).filter((k) => k.startsWith('multicluster.linkerd.io')), []);
    const endpoints = await live('endpoints', mirror);
    assert.deepEqual(endpoints.subsets[0].addresses.map((a: { ip: string }) => a.ip), ['203.0.113.20']);
    assert.equal(endpoints.metadata.annotations['mirror.linkerd.io/remote-gateway-identity'].length > 0, true);
  });

  test('GIVEN a target Service with BOM, C0 controls, CRLF, tabs, blank lines, leading/trailing spaces and YAML-ambiguous annotation values WHEN synth runs and dist is applied with kustomize THEN the source holds each value byte for byte as the target does', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    assertSucceeded();
    const stored = targetServices.get('exact').metadata.annotations;
    // (the target's API server stored exactly what was sent)
    for (const [k, v] of Object.entries(EXACT_ANNOTATIONS)) assert.equal(stored[k], v, `target ${k}`);
    const got = (await live('service', `exact-${TARGET}`)).metadata.annotations;
    for (const [k, v] of Object.entries(EXACT_ANNOTATIONS)) assert.equal(got[k], v, `source ${k}: ${JSON.stringify(got[k])} instead of ${JSON.stringify(v)}`);
  });

  test('GIVEN a target Service with NEL, U+2028/9, DEL, C1 controls and U+FFFE/F in annotation values WHEN synth runs THEN they are not copied (kustomize cannot carry them), each with a warning in the output and the report, and the folder still builds and applies', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    assertSucceeded();
    const stored = targetServices.get('exact').metadata.annotations;
    for (const [k, v] of Object.entries(UNDELIVERABLE_ANNOTATIONS)) assert.equal(stored[k], v, `target ${k}`);
    const svc = distObject(`${NS}/service-exact-${TARGET}.yaml`);
    const got = (await live('service', `exact-${TARGET}`)).metadata.annotations;
    for (const k of Object.keys(UNDELIVERABLE_ANNOTATIONS)) {
      assert.equal(svc.metadata.annotations[k], undefined, `dist ${k}`);
      assert.equal(got[k], undefined, `live ${k}`);
      const warning = `${SOURCE}: ${TARGET}/${NS}/exact: the annotation "${k}" is not copied to the mirror: it holds `;
      assert.ok(run.report.warnings.some((w: string) => w.startsWith(warning)), `report warning for ${k}`);
      assert.ok(run.stderr.includes(`warning: ${warning}`), `printed warning for ${k}`);
    }
    assert.ok(run.report.warnings.some((w: string) => w.includes('"exact.example.com/nel" is not copied to the mirror: it holds U+0085, which kustomize (and so Argo CD, Flux and kubectl apply -k) turns into spaces')));
  });

  test('GIVEN a target Service with YAML-ambiguous label keys and values (yes, on, null, 1e3, 0x1F, 012, 2001-12-14) WHEN synth runs and dist is applied THEN the source holds them as the same strings', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    assertSucceeded();
    const got = (await live('service', `exact-${TARGET}`)).metadata.labels;
    for (const [k, v] of Object.entries(AMBIGUOUS_LABELS)) assert.equal(got[k], v, `label ${k}`);
    const endpoints = (await live('endpoints', `exact-${TARGET}`)).metadata.labels;
    for (const [k, v] of Object.entries(AMBIGUOUS_LABELS)) assert.equal(endpoints[k], v, `Endpoints label ${k}`);
  });

  test('GIVEN a flat-mode export carrying hostile multicluster.linkerd.io keys WHEN synth runs THEN the mirror\'s discovery labels are mirrorc\'s own (the target, the service) and no copied one survives', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    assertSucceeded();
    const svc = await live('service', `flat-${TARGET}`);
    assert.equal(svc.metadata.labels['multicluster.linkerd.io/remote-discovery'], TARGET);
    assert.equal(svc.metadata.labels['multicluster.linkerd.io/remote-service'], 'flat');
    assert.equal(svc.metadata.annotations['multicluster.linkerd.io/remote-discovery'], undefined);
    assert.equal(svc.metadata.labels['team.example.com/owner'], 'team-a');
  });

  test('GIVEN a federated member carrying hostile discovery annotations and a Helm hook WHEN synth runs THEN the federated Service lists only the real member and carries neither', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    assertSucceeded();
    const svc = await live('service', 'fed-federated');
    assert.equal(svc.metadata.annotations['multicluster.linkerd.io/remote-discovery'], `fed@${TARGET}`);
    assert.equal(svc.metadata.annotations['multicluster.linkerd.io/local-discovery'], undefined, 'east has no local member');
    assert.equal(svc.metadata.annotations['helm.sh/hook'], undefined);
    assert.equal(svc.metadata.labels['multicluster.linkerd.io/remote-discovery'], undefined);
    assert.equal(svc.metadata.annotations['team.example.com/owner'], 'team-a');
  });

  test('GIVEN a StatefulSet Service carrying forbidden labels WHEN synth runs THEN neither the headless root mirror, the per-pod mirrors nor their endpoints carry them', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    assertSucceeded();
    const forbidden = { 'helm.sh/chart': 'kafka-1', 'argocd.argoproj.io/instance': 'kafka', 'multicluster.linkerd.io/remote-discovery': 'other' };
    for (const [kind, name] of [['service', `kafka-${TARGET}`], ['service', `kafka-0-${TARGET}`], ['service', `kafka-1-${TARGET}`], ['endpoints', `kafka-0-${TARGET}`], ['endpointslice', `kafka-${TARGET}-ipv4`], ['service', 'kafka-global']] as const) {
      const got = await live(kind, name);
      assertNone(got, forbidden, `${kind} ${name}`);
    }
    assert.equal((await live('service', `kafka-0-${TARGET}`)).metadata.labels['team.example.com/owner'], 'team-a');
  });

  test('GIVEN strings kustomize cannot carry WHEN the writer writes them and kubectl creates the object from the file (sigs.k8s.io/yaml, sent as JSON) THEN the API server stores them byte for byte', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    // (not a synth run: proves the writer's Go-exact quoting where no YAML emitter is in the way; kubectl's
    // server-side apply re-encodes the object as YAML with go-yaml's emitter, which fails on DEL and C1 as kustomize does)
    const annotations = { ...UNDELIVERABLE_ANNOTATIONS, ...EXACT_ANNOTATIONS };
    const file = join(repo.dir, 'configmap-exact.yaml');
    writeFileSync(file, stringifyYaml({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'writer-exact', namespace: NS, annotations } }));
    await fleet.kubectl(SOURCE, ['create', '-f', file]);
    const got = await live('configmap', 'writer-exact');
    for (const [k, v] of Object.entries(annotations)) {
      assert.equal(got.metadata.annotations[k], v, `annotation ${k}: ${JSON.stringify(got.metadata.annotations[k])}`);
    }
  });

  test('GIVEN the written tree WHEN check runs offline THEN it exits 0: dist/ and the lock are exactly what synth writes', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    assertSucceeded();
    const before = repo.hash();
    const checked = await repo.run(['check', '--offline']);
    assert.equal(checked.code, 0, checked.stderr + checked.stdout);
    assert.equal(checked.report.exitCode, 0);
    assert.equal(checked.report.error, null);
    assert.equal(repo.hash(), before);
  });

  test('GIVEN a link with allowedLabels/allowedAnnotations WHEN synth runs THEN mirrors carry only the listed keys (plus opaque ports and mirrorc\'s own)', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const allow = new SafetyRepo();
    try {
      await applyTargetService('allow', { ...OWN, tier: 'front', ...EXPORTED }, { ...OWN, note: 'x', 'config.linkerd.io/opaque-ports': '3306' });
      allow.writeFleet(FLEET.replace('__EXTRA__', ", allowedLabels: ['team.example.com/*'], allowedAnnotations: ['note']"));
      const r = await allow.run(['synth', '--kubeconfig', kubeconfig]);
      assert.equal(r.code, 0, r.stderr);
      assertNoStackTrace(r.stderr);
      assert.equal(r.report.exitCode, 0);
      assert.equal(r.report.error, null);
      // (the mirror's file: its Service first, then its Endpoints and EndpointSlice)
      const svc = YAML.parseAllDocuments(readFileSync(join(allow.outDir, SOURCE, `from-${TARGET}`, NS, `service-allow-${TARGET}.yaml`), 'utf8'))[0]!.toJS();
      assert.deepEqual([svc.kind, svc.metadata.name], ['Service', `allow-${TARGET}`]);
      assert.deepEqual(svc.metadata.labels, {
        'mirror.linkerd.io/cluster-name': TARGET, 'mirror.linkerd.io/mirrored-service': 'true', 'mirrorc.io/managed': 'true', 'team.example.com/owner': 'team-a',
      });
      assert.deepEqual(svc.metadata.annotations, {
        'config.linkerd.io/opaque-ports': '3306', 'mirror.linkerd.io/remote-svc-fq-name': `allow.${NS}.svc.cluster.local`, note: 'x',
      });
      // AND the state is the complete tree an offline synth from its lock writes
      const after1 = allow.hash();
      const again = await allow.run(['synth', '--offline']);
      assert.equal(again.code, 0, again.stderr);
      assert.equal(allow.hash(), after1);
    } finally {
      allow.remove();
      await fleet.kubectl(TARGET, ['delete', 'service', 'allow', '-n', NS]);
    }
  });

  test('GIVEN an allow-list naming a forbidden family (helm.sh/*) WHEN synth runs THEN it exits 2 naming the entry and the family, and dist/ and the lock stay the previous tree', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const bad = new SafetyRepo();
    try {
      // GIVEN the previous complete tree
      cpSync(repo.outDir, bad.outDir, { recursive: true });
      cpSync(repo.lockFile, bad.lockFile);
      const previous = bad.hash();
      bad.writeFleet(FLEET.replace('__EXTRA__', ", allowedLabels: ['app', 'helm.sh/*'], allowedAnnotations: ['argocd.argoproj.io/sync-options']"));
      const r = await bad.run(['synth', '--kubeconfig', kubeconfig]);
      assert.equal(r.code, 2, r.stderr);
      assertNoStackTrace(r.stderr + r.stdout);
      assert.match(r.stderr, /link fleet\/east-from-west: allowedLabels entry "helm\.sh\/\*" names labels that are never copied to mirrors \(helm\.sh\/\*: .+\); remove the entry/);
      assert.match(r.stderr, /allowedAnnotations entry "argocd\.argoproj\.io\/sync-options" names annotations that are never copied/);
      assert.equal(r.report.exitCode, 2);
      assert.match(r.report.error, /allowedLabels entry "helm\.sh\/\*"/);
      assert.equal(bad.hash(), previous);
    } finally {
      bad.remove();
    }
  });

  test('GIVEN a lock edited to hold an unpaired surrogate in a copied annotation WHEN synth runs offline THEN it exits 3 naming the file and the value, and dist/ and the lock stay the previous tree', async (t) => {
    if (!fleet) return t.skip('no kube-apiserver');
    const edited = new SafetyRepo();
    try {
      cpSync(repo.outDir, edited.outDir, { recursive: true });
      edited.writeFleet(FLEET.replace('__EXTRA__', ''));
      const lock = readFileSync(repo.lockFile, 'utf8');
      assert.ok(lock.includes('"team-a"'));
      edited.writeLock(lock.replace('"team-a"', '"team-\\ud800"'));
      const previous = edited.hash();
      const r = await edited.run(['synth', '--offline']);
      assert.equal(r.code, 3, r.stderr);
      assertNoStackTrace(r.stderr + r.stdout);
      assert.match(r.stderr, /east\/from-west\/shop\/[a-z-]+\.yaml: the string "team-\\ud800" holds an unpaired UTF-16 surrogate \(U\+D800\), which neither YAML nor the Kubernetes API can carry/);
      assert.match(r.stderr, /fix or remove it there, or run synth online/);
      assert.equal(r.report.exitCode, 3);
      assert.match(r.report.error, /unpaired UTF-16 surrogate/);
      assert.equal(edited.hash(), previous);
    } finally {
      edited.remove();
    }
  });
});
