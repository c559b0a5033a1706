/**
 * `mirrorc explain` (src/explain/, src/pipeline/run-explain.ts): one test per reason a service is or
 * is not mirrored. Real files: a fleet file and a lock written into a temp folder, explained offline
 * as the CLI does; the CLI itself for the text, --json and exit 2.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { readTree } from '../../src/emit/write-output.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { ExplainReason } from '../../src/explain/explain-reason.js';
import type { Explanation, LinkExplanation } from '../../src/explain/explain-service.js';
import { renderLockFile } from '../../src/observe/lock-file.js';
import { runExplain, type ExplainOutcome } from '../../src/pipeline/run-explain.js';
import { runSynth } from '../../src/pipeline/run-synth.js';
import type { FleetSnapshot, ObservedTrustRoot } from '../../src/snapshot/snapshot.js';
import { flatService, federatedService, service, source, statefulService, target } from '../fixtures/snapshots.js';

const INDEX = resolve('src/index.ts');
const MAIN = resolve('src/cli/main.ts');
const TSX = import.meta.resolve('tsx');
const LONG = 'l'.repeat(60);

/** The fleet: src mirrors tgt (and old-tgt, nogw, unseen, trusty); src2 mirrors tgt's team=b services; lonely is no link's target. */
const FLEET = `import { Cluster, Link } from ${JSON.stringify(INDEX)};
export default function (fleet) {
  const src = new Cluster(fleet, 'src', { pinnedServiceIPRange: '10.96.0.0/24' });
  const src2 = new Cluster(fleet, 'src2');
  const tgt = new Cluster(fleet, 'tgt');
  const oldTgt = new Cluster(fleet, 'old-tgt');
  const nogw = new Cluster(fleet, 'nogw');
  const unseen = new Cluster(fleet, 'unseen');
  const trusty = new Cluster(fleet, 'trusty');
  new Cluster(fleet, 'lonely');
  new Link(fleet, 'src-from-tgt', { source: src, target: tgt, namespaces: { exclude: ['private'] }, remoteDiscoveryCredentials: { provided: 'external' } });
  new Link(fleet, 'src-from-old-tgt', { source: src, target: oldTgt, adoptLinkerdMirrors: true });
  new Link(fleet, 'src-from-nogw', { source: src, target: nogw });
  new Link(fleet, 'src-from-unseen', { source: src, target: unseen });
  new Link(fleet, 'src-from-trusty', { source: src, target: trusty });
  new Link(fleet, 'src2-from-tgt', { source: src2, target: tgt, selector: { matchLabels: { team: 'b' } } });
}
`;

const root = (fingerprint: string): ObservedTrustRoot => ({ fingerprint: Array.from({ length: 32 }, () => fingerprint).join(':'), subject: `CN=root-${fingerprint}`, notAfter: '2099-01-01T00:00:00.000Z' });

const DEFAULT_QUERIES = ['mirror.linkerd.io/exported=remote-discovery', 'mirror.linkerd.io/exported=true', 'mirror.linkerd.io/federated=member'];

/** The lock: what each target exported when last observed. */
function lock(): FleetSnapshot {
  return {
    format: 1,
    targets: {
      nogw: target([service('shop', 'api')], { selectors: DEFAULT_QUERIES, gateway: undefined }),
      'old-tgt': target([service('shop', 'foo'), service('shop', 'legacy')], { selectors: DEFAULT_QUERIES }),
      tgt: target(
        [
          federatedService('shop', 'checkout'),
          service('faraway', 'api'),
          service('kube-system', 'dns'),
          federatedService('kube-system', 'fedsys'),
          service('private', 'secret'),
          statefulService('db', 'zk', ['zk-0', 'zk-1']),
          flatService('shop', 'flat'),
          service('shop', 'foo-old'),
          service('shop', LONG),
          service('shop', 'sleepy', { hasReadyEndpoints: false }),
          service('shop', 'taken'),
          service('shop', 'teamb', { labels: { team: 'b' } }),
          service('shop', 'web'),
        ].sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`)),
        { selectors: [...DEFAULT_QUERIES, 'team=b'].sort() },
      ),
      trusty: target([service('shop', 'vault')], { selectors: DEFAULT_QUERIES, trustRoots: [root('BB')] }),
    },
    sources: {
      src: {
        ...source(['db', 'default', 'kube-system', 'shop']),
        foreignServices: [
          { namespace: 'shop', name: 'legacy-old-tgt', linkerdCluster: 'old-tgt', clusterIP: '10.100.0.9' },
          { namespace: 'shop', name: 'taken-tgt' },
        ],
        pinnedRangeServices: [],
        trustRoots: [root('AA')],
      },
      src2: source(['shop']),
    },
    staleSince: { targets: { nogw: '2026-01-02T03:04:05Z' } },
  };
}

let dir: string;
const files = (): { fleetFile: string; lockFile: string; outDir: string } => ({ fleetFile: join(dir, 'fleet.ts'), lockFile: join(dir, 'fleet.lock.json'), outDir: join(dir, 'dist') });

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'mirrorc-explain-'));
  writeFileSync(join(dir, 'fleet.ts'), FLEET);
  writeFileSync(join(dir, 'fleet.lock.json'), renderLockFile(lock()));
  mkdirSync(join(dir, 'dist'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

async function explain(ref: string): Promise<Explanation> {
  const outcome: ExplainOutcome = await runExplain({ ref, ...files() });
  assert.ok(outcome.ok, outcome.ok ? '' : outcome.error);
  return outcome.explanation;
}

/** The explanation of the link from `source`. */
async function viaLink(ref: string, sourceCluster = 'src'): Promise<LinkExplanation> {
  const e = await explain(ref);
  const link = e.links.find((l) => l.source === sourceCluster);
  assert.ok(link, `no link from ${sourceCluster} in ${JSON.stringify(e.links.map((l) => l.source))}`);
  return link;
}

async function unknown(ref: string): Promise<{ error: string; reason?: string }> {
  const outcome = await runExplain({ ref, ...files() });
  assert.ok(!outcome.ok, `expected ${ref} to be unknown`);
  return outcome;
}

/**
 * The objects (`<Kind>/<name>`, in document order) of `file` (relative to the output folder, as
 * explain lists it) in what synth writes from the same fleet and lock, into a folder of its own.
 */
async function writtenObjects(file: string): Promise<string[]> {
  const out = mkdtempSync(join(tmpdir(), 'mirrorc-explain-synth-'));
  try {
    const lockFile = join(out, 'fleet.lock.json');
    copyFileSync(files().lockFile, lockFile);
    const r = await runSynth({ fleetFile: files().fleetFile, lockFile, outDir: join(out, 'dist'), offline: true, log: () => {}, print: () => {} });
    assert.equal(r.exitCode, ExitCode.OK, r.error);
    const text = readTree(join(out, 'dist')).get(file);
    assert.ok(text !== undefined, `synth wrote no ${file}`);
    return parseAllDocuments(text).map((d) => d.toJS() as { kind: string; metadata: { name: string } }).map((o) => `${o.kind}/${o.metadata.name}`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

function mirrorc(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', TSX, MAIN, ...args], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('why a service is mirrored', () => {
  test('gateway mode: matched by the selector, with its mirror and its files in the delivery unit folder', async () => {
    const l = await viaLink('tgt/shop/web');
    assert.equal(l.mirrored, true);
    assert.equal(l.mode, 'gateway');
    assert.equal(l.selectedBy, 'selector');
    assert.equal(l.reasons[0]!.reason, ExplainReason.MIRRORED);
    assert.deepEqual(l.mirrorServices, ['shop/web-tgt']);
    // One file per mirror: its Service, Endpoints and EndpointSlice are the documents of the one file listed.
    assert.deepEqual(l.files, ['src/from-tgt/shop/service-web-tgt.yaml']);
    assert.deepEqual(await writtenObjects('src/from-tgt/shop/service-web-tgt.yaml'), ['Service/web-tgt', 'Endpoints/web-tgt', 'EndpointSlice/web-tgt-ipv4']);
  });

  test('remote-discovery (flat) mode: matched by remoteDiscoverySelector', async () => {
    const l = await viaLink('tgt/shop/flat');
    assert.equal(l.mirrored, true);
    assert.equal(l.mode, 'remote-discovery');
    assert.equal(l.selectedBy, 'remoteDiscoverySelector');
  });

  test('headless mode: a StatefulSet mirrored per pod, its per-pod files listed', async () => {
    const l = await viaLink('tgt/db/zk');
    assert.equal(l.mode, 'headless');
    assert.deepEqual(l.mirrorServices, ['db/zk-tgt', 'db/zk-0-tgt', 'db/zk-1-tgt']);
    // The per-pod Services (and their Endpoints and slices) are documents of the headless mirror's one file, which is listed.
    assert.deepEqual(l.files, ['src/from-tgt/db/service-zk-tgt.yaml']);
    assert.deepEqual(await writtenObjects('src/from-tgt/db/service-zk-tgt.yaml'), [
      'Service/zk-tgt', 'Endpoints/zk-tgt', 'EndpointSlice/zk-tgt-ipv4',
      'Service/zk-0-tgt', 'Endpoints/zk-0-tgt', 'EndpointSlice/zk-0-tgt-ipv4',
      'Service/zk-1-tgt', 'Endpoints/zk-1-tgt', 'EndpointSlice/zk-1-tgt-ipv4',
    ]);
  });

  test('federated member: joins <svc>-federated in the shared unit', async () => {
    const l = await viaLink('tgt/shop/checkout');
    assert.equal(l.mirrored, true);
    assert.equal(l.mode, 'federated');
    assert.equal(l.reasons[0]!.reason, ExplainReason.FEDERATED_MEMBER);
    assert.deepEqual(l.files, ['src/shared/shop/service-checkout-federated.yaml']);
  });

  test('adopted from Linkerd: the mirror takes over the Service Linkerd\'s controller wrote', async () => {
    const l = await viaLink('old-tgt/shop/legacy');
    assert.equal(l.mirrored, true);
    assert.ok(l.reasons.some((r) => r.reason === ExplainReason.ADOPTED_FROM_LINKERD && r.message.includes('shop/legacy-old-tgt')), JSON.stringify(l.reasons));
  });

  test('not ready: mirrored, but its endpoints are empty because the target service has no ready endpoint', async () => {
    const e = await explain('tgt/shop/sleepy');
    assert.equal(e.observed?.ready, false);
    const l = e.links.find((x) => x.source === 'src')!;
    assert.equal(l.mirrored, true);
    assert.ok(l.reasons.some((r) => r.reason === ExplainReason.NOT_READY && r.message.includes('no ready endpoint')), JSON.stringify(l.reasons));
  });

  test('a stale target: mirrored from its last observation, and said so', async () => {
    const e = await explain('nogw/shop/api');
    assert.ok(e.target.some((r) => r.reason === ExplainReason.TARGET_STALE && r.message.includes('2026-01-02T03:04:05Z')), JSON.stringify(e.target));
  });

  test('asked by its mirror\'s name in the source: explained as the target service', async () => {
    const e = await explain('src/shop/web-tgt');
    assert.deepEqual(e.service, { cluster: 'tgt', namespace: 'shop', name: 'web' });
    assert.equal(e.askedMirror, 'src/shop/web-tgt');
  });

  test('asked by a federated Service\'s name (<svc>-federated, issue 39): explained for its remote member, every member named', async () => {
    const e = await explain('src/shop/checkout-federated');
    assert.deepEqual(e.service, { cluster: 'tgt', namespace: 'shop', name: 'checkout' });
    assert.equal(e.askedMirror, 'src/shop/checkout-federated');
    assert.deepEqual(e.federatedMembers, ['tgt/shop/checkout']);
    assert.deepEqual(e.links.find((l) => l.source === 'src')!.files, ['src/shared/shop/service-checkout-federated.yaml']);
  });

  test('the bundled example fleet: west/shop/checkout-federated is explained (exit 0), not "did you mean" itself with an export-label hint', () => {
    const r = mirrorc(['explain', 'west/shop/checkout-federated']);
    assert.equal(r.status, ExitCode.OK, r.stderr);
    assert.match(r.stdout, /^west\/shop\/checkout-federated is a federated Service; its members: west\/shop\/checkout, east\/shop\/checkout$/m);
    assert.match(r.stdout, /^west ← east \(link fleet\/west-from-east\): MIRRORED \(federated mode\)$/m);
    assert.doesNotMatch(r.stderr, /did you mean|export label/);
  });
});

describe('why a service is not mirrored', () => {
  test('selector does not match: the failing label is named, while another link\'s selector matches', async () => {
    const e = await explain('tgt/shop/teamb');
    const src = e.links.find((l) => l.source === 'src')!;
    assert.equal(src.mirrored, false);
    assert.equal(src.reasons[0]!.reason, ExplainReason.SELECTOR_NOT_MATCHED);
    const selector = src.selectors.find((s) => s.field === 'selector')!;
    assert.deepEqual(selector.failing, ['label mirror.linkerd.io/exported=true: the service has no such label']);
    const src2 = e.links.find((l) => l.source === 'src2')!;
    assert.equal(src2.mirrored, true);
  });

  test('namespace filter', async () => {
    const l = await viaLink('tgt/private/secret');
    assert.equal(l.reasons[0]!.reason, ExplainReason.NAMESPACE_FILTERED);
    assert.match(l.reasons[0]!.message, /exclude \["private"\]/);
  });

  test('system namespace', async () => {
    const l = await viaLink('tgt/kube-system/dns');
    assert.equal(l.reasons[0]!.reason, ExplainReason.SYSTEM_NAMESPACE);
    assert.match(l.reasons[0]!.message, /mirrorSystemNamespaces/);
  });

  test('system namespace, federated member (issue 33 item 6): left out of <svc>-federated, and the reason says so', async () => {
    const l = await viaLink('tgt/kube-system/fedsys');
    assert.equal(l.mirrored, false);
    assert.equal(l.reasons[0]!.reason, ExplainReason.SYSTEM_NAMESPACE);
    assert.match(l.reasons[0]!.message, /"kube-system" is a system namespace of "tgt", so tgt\/kube-system\/fedsys is not mirrored; set mirrorSystemNamespaces: true on link fleet\/src-from-tgt/);
  });

  test('the mirror\'s namespace is missing in the source', async () => {
    const l = await viaLink('tgt/faraway/api');
    assert.equal(l.reasons[0]!.reason, ExplainReason.SOURCE_NAMESPACE_MISSING);
    assert.match(l.reasons[0]!.message, /createMissingNamespaces/);
  });

  test('name too long', async () => {
    const l = await viaLink(`tgt/shop/${LONG}`);
    assert.equal(l.mirrored, false);
    assert.equal(l.reasons[0]!.reason, ExplainReason.NAME_TOO_LONG);
  });

  test('name clash: two targets\' services would get one mirror name, and neither has it yet', async () => {
    for (const ref of ['tgt/shop/foo-old', 'old-tgt/shop/foo']) {
      const l = await viaLink(ref);
      assert.equal(l.reasons[0]!.reason, ExplainReason.NAME_CLASH, ref);
      assert.match(l.reasons[0]!.message, /shop\/foo-old-tgt/);
    }
  });

  test('name taken by a Service mirrorc did not write', async () => {
    const l = await viaLink('tgt/shop/taken');
    assert.equal(l.reasons[0]!.reason, ExplainReason.NAME_TAKEN);
  });

  test('no gateway address known for the target', async () => {
    const l = await viaLink('nogw/shop/api');
    assert.equal(l.mirrored, false);
    assert.equal(l.reasons[0]!.reason, ExplainReason.NO_GATEWAY);
  });

  test('the link\'s clusters share no trust root', async () => {
    const l = await viaLink('trusty/shop/vault');
    assert.equal(l.reasons[0]!.reason, ExplainReason.TRUST_ANCHORS_DIFFER);
  });

  test('a forgotten export label: not in the lock, and the message says which label to add', async () => {
    const r = await unknown('tgt/shop/forgotten');
    assert.equal(r.reason, ExplainReason.NOT_EXPORTED);
    assert.match(r.error, /lacks the export label/);
    assert.match(r.error, /add the label mirror\.linkerd\.io\/exported=true/);
  });

  test('a target never observed', async () => {
    const r = await unknown('unseen/shop/x');
    assert.equal(r.reason, ExplainReason.TARGET_NOT_OBSERVED);
  });

  test('no link to the cluster', async () => {
    const r = await unknown('lonely/shop/x');
    assert.equal(r.reason, ExplainReason.NO_LINK);
  });
});

describe('the explain command', () => {
  test('prints the verdict, the failing label and the files; --json gives the same as data', () => {
    const { fleetFile, lockFile, outDir } = files();
    const text = mirrorc(['explain', 'tgt/shop/teamb', '--fleet', fleetFile, '--lock', lockFile, '--out', outDir]);
    assert.equal(text.status, ExitCode.OK, text.stderr);
    assert.match(text.stdout, /^src ← tgt \(link fleet\/src-from-tgt\): NOT MIRRORED$/m);
    assert.match(text.stdout, /selector mirror\.linkerd\.io\/exported=true: does not match: label mirror\.linkerd\.io\/exported=true: the service has no such label/);
    assert.match(text.stdout, /^src2 ← tgt \(link fleet\/src2-from-tgt\): MIRRORED \(gateway mode\)$/m);
    assert.match(text.stdout, new RegExp(`^    ${outDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/src2/from-tgt/shop/service-teamb-tgt\\.yaml$`, 'm'));
    const json = mirrorc(['explain', 'tgt/shop/teamb', '--json', '--fleet', fleetFile, '--lock', lockFile, '--out', outDir]);
    assert.equal(json.status, ExitCode.OK, json.stderr);
    const data = JSON.parse(json.stdout) as Explanation;
    assert.deepEqual(data.links.map((l) => [l.source, l.mirrored, l.reasons[0]!.reason]), [['src', false, 'selector-not-matched'], ['src2', true, 'mirrored']]);
    // Every JSON document names its format and the mirrorc that wrote it (issue 39), an error's too
    const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
    assert.deepEqual([(data as unknown as Record<string, unknown>).reportFormat, (data as unknown as Record<string, unknown>).mirrorcVersion], [1, version]);
    const failed = mirrorc(['explain', 'tgt/shop/wbe', '--json', '--fleet', fleetFile, '--lock', lockFile, '--out', outDir]);
    assert.equal(failed.status, ExitCode.INVALID_INPUT);
    assert.deepEqual(Object.entries(JSON.parse(failed.stdout) as Record<string, unknown>).slice(0, 2), [['reportFormat', 1], ['mirrorcVersion', version]]);
  });

  test('explain --help: its usage line and only the options it takes; the general help lists it', () => {
    const help = mirrorc(['explain', '--help']);
    assert.equal(help.status, ExitCode.OK, help.stderr);
    assert.match(help.stdout, /^usage: mirrorc explain <cluster>\/<namespace>\/<service> \[options\]/);
    for (const option of ['--fleet', '--lock', '--out', '--json']) assert.match(help.stdout, new RegExp(`^  ${option} `, 'm'));
    assert.doesNotMatch(help.stdout, /--offline|--strict|--report|--wait/);
    assert.doesNotMatch(mirrorc(['plan', '--help']).stdout, /--json/);
    assert.match(mirrorc(['--help']).stdout, /^ {2}explain {2}why <cluster>\/<namespace>\/<service> is \(not\) mirrored/m);
  });

  test('an unknown service is exit 2 with the closest name; an option explain does not take is exit 2', () => {
    const { fleetFile, lockFile, outDir } = files();
    const typo = mirrorc(['explain', 'tgt/shop/wbe', '--fleet', fleetFile, '--lock', lockFile, '--out', outDir]);
    assert.equal(typo.status, ExitCode.INVALID_INPUT);
    assert.match(typo.stderr, /^error: no service tgt\/shop\/wbe in the lock or the output; did you mean tgt\/shop\/web\?/);
    // A per-pod mirror Service has no file of its own (it is a document of its headless mirror's file): still suggested.
    const perPod = mirrorc(['explain', 'src/db/zk-1-tgx', '--fleet', fleetFile, '--lock', lockFile, '--out', outDir]);
    assert.equal(perPod.status, ExitCode.INVALID_INPUT);
    assert.match(perPod.stderr, /^error: no service src\/db\/zk-1-tgx in the lock or the output; did you mean src\/db\/zk-1-tgt\?/);
    const cluster = mirrorc(['explain', 'tgtt/shop/web', '--fleet', fleetFile, '--lock', lockFile, '--out', outDir]);
    assert.equal(cluster.status, ExitCode.INVALID_INPUT);
    assert.match(cluster.stderr, /no cluster "tgtt" in the fleet; did you mean "tgt"\?/);
    const malformed = mirrorc(['explain', 'web', '--fleet', fleetFile, '--lock', lockFile, '--out', outDir]);
    assert.equal(malformed.status, ExitCode.INVALID_INPUT);
    assert.match(malformed.stderr, /is not <cluster>\/<namespace>\/<service>/);
    const offline = mirrorc(['explain', 'tgt/shop/web', '--offline', '--fleet', fleetFile]);
    assert.equal(offline.status, ExitCode.INVALID_INPUT);
    assert.match(offline.stderr, /explain does not take --offline/);
    const planJson = mirrorc(['plan', '--json', '--fleet', fleetFile]);
    assert.equal(planJson.status, ExitCode.INVALID_INPUT);
    assert.match(planJson.stderr, /--json is an option of explain; plan's JSON is its report: --report -/);
  });
});
