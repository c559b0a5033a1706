/**
 * User mistakes are not mirrorc's bugs: a broken fleet file, a wrong --kubeconfig, credentials in a
 * kubeconfig, `cdk8s synth`, an invalid command line, and a real internal failure. Each case runs
 * the real CLI in a scratch repository and asserts dist/ + lock (old or new complete tree, by
 * hash), the exit code, the message, no stack trace (unless it is a bug), and the report file.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { parse, stringify } from 'yaml';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { observationRules } from '../../src/observe/observation-rbac.js';
import { kubeFleetForTests, type KubeFleet } from '../harness/kube-fleet.js';
import { MIRRORC_INDEX_URL, REPO_ROOT, SafetyRepo, assertNoStackTrace, assertOneOf, readFiles, type CliRun } from './support.js';

const IMPORT_LINE = `import { Cluster, ExplicitExport, GitOpsDelivery, Link, type Fleet } from ${JSON.stringify(MIRRORC_INDEX_URL)};`;
const VALID_BODY = `  const a = new Cluster(fleet, 'a');\n  const b = new Cluster(fleet, 'b');\n  new Link(fleet, 'a-from-b', { source: a, target: b });`;
const LOCK = {
  format: 1,
  targets: {
    b: {
      selectors: ['mirror.linkerd.io/exported=remote-discovery', 'mirror.linkerd.io/exported=true'],
      services: [{ namespace: 'default', name: 'web', labels: { 'mirror.linkerd.io/exported': 'true' }, annotations: {}, type: 'ClusterIP', headless: false, ports: [{ name: 'http', protocol: 'TCP', port: 80 }] }],
      missingExplicitExports: [],
      gateway: { addresses: ['203.0.113.7'], port: 4143, identity: 'gw.example' },
    },
  },
  sources: { a: { namespaces: ['default'], foreignServices: [] } },
};

/** A complete fleet file: the import line, then `lines` (so line numbers in messages are known). */
function fleetFile(...lines: string[]): string {
  return `${[IMPORT_LINE, ...lines].join('\n')}\n`;
}

let template: SafetyRepo;

/** A scratch repository holding a valid fleet, its lock and the complete dist/ compiled from them. */
function repoWithOutput(): { repo: SafetyRepo; old: string } {
  const repo = new SafetyRepo();
  cpSync(template.dir, repo.dir, { recursive: true });
  rmSync(repo.reportFile, { force: true });
  return { repo, old: repo.hash() };
}

before(async () => {
  template = new SafetyRepo();
  template.writeFile('clusters/fleet.ts', fleetFile('export default function defineFleet(fleet: Fleet): void {', VALID_BODY, '}'));
  template.writeLock(LOCK);
  const first = await template.run(['synth', '--offline']);
  assert.equal(first.code, 0, first.stderr);
  assert.ok(readFiles(template.outDir).size > 0, 'the template has a complete dist/');
});

after(() => template?.remove());

/** Asserts a run that must change nothing: the old state, `code`, `message` on stderr and in the report, no stack trace. */
function assertRefused(run: CliRun, repo: SafetyRepo, old: string, code: number, message: RegExp, command = 'synth'): void {
  const output = `${run.stdout}${run.stderr}`;
  assert.equal(run.code, code, output);
  assert.match(run.stderr, message);
  assertNoStackTrace(output);
  assertOneOf(repo.hash(), { old }, `exit ${code}`);
  assert.ok(run.report, `no report file was written:\n${output}`);
  assert.equal(run.report.exitCode, code);
  assert.equal(run.report.command, command);
  assert.match(run.report.error, message);
}

/** Runs `args` after replacing the fleet file by `text`, and asserts it is refused with exit 2 and `message`. */
async function assertFleetRefused(text: string, message: RegExp, args: readonly string[] = ['synth', '--offline']): Promise<CliRun> {
  const { repo, old } = repoWithOutput();
  try {
    repo.writeFile('clusters/fleet.ts', text);
    const run = await repo.run(args);
    assertRefused(run, repo, old, ExitCode.INVALID_INPUT, message, args[0]);
    return run;
  } finally {
    repo.remove();
  }
}

describe('fleet file mistakes: exit 2, file:line:column, no stack trace, dist/ and lock untouched', () => {
  test('GIVEN a ReferenceError at the top level of the fleet file WHEN synth runs THEN it names line 2, column 14, where the misspelled name starts', async () => {
    const line = 'const typo = eest + 1;';
    // (line 1 is the import; columns count from 1)
    assert.equal(line.indexOf('eest') + 1, 14);
    await assertFleetRefused(
      fleetFile(line, 'export default function defineFleet(fleet: Fleet): void {', VALID_BODY, '}'),
      /clusters\/fleet\.ts:2:14: ReferenceError: eest is not defined\n {2}hint: a name is misspelled/,
    );
  });

  test('GIVEN a ReferenceError inside the definition function WHEN synth runs THEN it names the line and column of the misspelled name', async () => {
    await assertFleetRefused(
      fleetFile('export default function defineFleet(fleet: Fleet): void {', '  const east = new Cluster(fleet, \'east\');', '  const west = new Cluster(fleet, \'west\');', '  new Link(fleet, \'l\', { source: eest, target: west });', '}'),
      /clusters\/fleet\.ts:5:34: ReferenceError: eest is not defined/,
    );
  });

  test('GIVEN a SyntaxError WHEN synth runs THEN it names the line and column and what the parser expected', async () => {
    await assertFleetRefused(
      fleetFile('export default function defineFleet(fleet: Fleet): void {', '  const a = new Cluster(fleet, \'a\';', '}'),
      /clusters\/fleet\.ts:3:\d+: SyntaxError: Expected "\)" but found ";"\n {2}hint: fix the syntax/,
    );
  });

  test('GIVEN two clusters with the same construct id WHEN synth runs THEN it names the second one\'s line and the id', async () => {
    await assertFleetRefused(
      fleetFile('export default function defineFleet(fleet: Fleet): void {', '  new Cluster(fleet, \'east\');', '  new Cluster(fleet, \'east\');', '}'),
      /clusters\/fleet\.ts:4:3: two constructs in fleet have the id "east"\n {2}hint: give each Cluster, Link and ExplicitExport an id of its own/,
    );
  });

  test('GIVEN a link whose source is a string, not a Cluster WHEN synth runs THEN the link is named and the fix said', async () => {
    await assertFleetRefused(
      fleetFile('export default function defineFleet(fleet: Fleet): void {', '  const b = new Cluster(fleet, \'b\');', '  new Link(fleet, \'a-from-b\', { source: \'a\' as any, target: b });', '}'),
      /link fleet\/a-from-b: its source is not a Cluster, so it is not defined in this fleet; create it with new Cluster\(fleet, \.\.\.\) and pass that object/,
    );
  });

  test('GIVEN a fleet file without a default export WHEN synth runs THEN it says what the default export must be', async () => {
    await assertFleetRefused(
      fleetFile('export function defineFleet(fleet: Fleet): void {', VALID_BODY, '}'),
      /fleet definition clusters\/fleet\.ts must have a default export: a function \(fleet: Fleet\) => void/,
    );
  });

  test('GIVEN a default export that is an object, not a function WHEN synth runs THEN it is refused the same way', async () => {
    await assertFleetRefused(fleetFile('export default { clusters: [] };'), /must have a default export: a function/);
  });

  test('GIVEN a TypeError at the top level WHEN synth runs THEN it names the line and suggests the type checker', async () => {
    await assertFleetRefused(
      fleetFile('const settings: any = undefined;', 'const region = settings.region;', 'export default function defineFleet(fleet: Fleet): void {', VALID_BODY, '}'),
      /clusters\/fleet\.ts:3:\d+: TypeError: Cannot read properties of undefined \(reading 'region'\)\n {2}hint: a value has the wrong type; npx -p typescript tsc --noEmit --strict .* clusters\/fleet\.ts shows/,
    );
  });

  test('GIVEN a construct id that is a number WHEN synth runs THEN it names the line of that construct', async () => {
    await assertFleetRefused(
      fleetFile('export default function defineFleet(fleet: Fleet): void {', '  new Cluster(fleet, 42 as any);', '}'),
      /clusters\/fleet\.ts:3:3: TypeError: /,
    );
  });

  test('GIVEN a cluster name that is not a string WHEN synth runs THEN the cluster is named and the value shown', async () => {
    await assertFleetRefused(
      fleetFile('export default function defineFleet(fleet: Fleet): void {', '  new Cluster(fleet, \'a\', { name: 42 as any });', '}'),
      /cluster fleet\/a: the cluster name is not a string \(got number 42\)/,
    );
  });

  test('GIVEN a link property of the wrong type WHEN synth runs THEN the link is named, not an internal failure', async () => {
    await assertFleetRefused(
      fleetFile('export default function defineFleet(fleet: Fleet): void {', '  const a = new Cluster(fleet, \'a\');', '  const b = new Cluster(fleet, \'b\');', '  new Link(fleet, \'a-from-b\', { source: a, target: b, excludedLabels: 5 as any });', '}'),
      /link fleet\/a-from-b: its properties have the wrong types \(.*\); npx -p typescript tsc --noEmit .* shows where/,
    );
  });

  test('GIVEN a definition that throws a string WHEN synth runs THEN it is the user\'s error: exit 2, the value shown', async () => {
    await assertFleetRefused(
      fleetFile('export default function defineFleet(fleet: Fleet): void {', '  throw \'no clusters today\';', '}'),
      /clusters\/fleet\.ts: the fleet definition threw "no clusters today" \(a string, not an Error/,
    );
  });

  test('GIVEN an async definition function WHEN synth runs THEN it is refused: the definition must be synchronous', async () => {
    await assertFleetRefused(
      fleetFile('export default async function defineFleet(fleet: Fleet): Promise<void> {', VALID_BODY, '}'),
      /clusters\/fleet\.ts: the default export returned a Promise; the fleet definition must be a synchronous function/,
    );
  });

  test('GIVEN an import of a file that does not exist WHEN synth runs THEN the import paths are blamed', async () => {
    await assertFleetRefused(
      fleetFile('import \'./helpers/regions.js\';', 'export default function defineFleet(fleet: Fleet): void {', VALID_BODY, '}'),
      /Cannot find module '\.\/helpers\/regions\.js'[\s\S]*hint: check the import paths at the top of the fleet file/,
    );
  });

  test('GIVEN a ReferenceError in a helper module the fleet file imports WHEN synth runs THEN the helper\'s file and line are named', async () => {
    const { repo, old } = repoWithOutput();
    try {
      repo.writeFile('clusters/regions.ts', ['export function regions(): string[] {', '  return [primry];', '}', ''].join('\n'));
      repo.writeFile('clusters/fleet.ts', fleetFile('import { regions } from \'./regions.js\';', 'export default function defineFleet(fleet: Fleet): void {', '  for (const r of regions()) new Cluster(fleet, r);', '}'));
      const run = await repo.run(['synth', '--offline']);
      assertRefused(run, repo, old, ExitCode.INVALID_INPUT, /clusters\/regions\.ts:2:11: ReferenceError: primry is not defined/);
    } finally {
      repo.remove();
    }
  });

  test('GIVEN an explicit export whose cluster is a string WHEN synth runs THEN the export is named and the fix said', async () => {
    await assertFleetRefused(
      fleetFile('export default function defineFleet(fleet: Fleet): void {', VALID_BODY, '  new ExplicitExport(fleet, \'web\', { cluster: \'b\' as any, namespace: \'default\', name: \'web\' });', '}'),
      /explicit export fleet\/web: its cluster \(not a Cluster\) is not defined in this fleet; pass a Cluster created in this fleet/,
    );
  });

  test('GIVEN an empty fleet file WHEN synth runs THEN it says what the default export must be', async () => {
    await assertFleetRefused('', /must have a default export: a function \(fleet: Fleet\) => void/);
  });

  test('GIVEN a ReferenceError WHEN observe runs THEN observe is refused before any cluster is contacted and the lock is untouched', async () => {
    const run = await assertFleetRefused(
      fleetFile('export default function defineFleet(fleet: Fleet): void {', '  new Cluster(fleet, eest);', '}'),
      /clusters\/fleet\.ts:3:22: ReferenceError: eest is not defined/,
      ['observe'],
    );
    assert.doesNotMatch(run.stderr, /observing/);
  });

  test('GIVEN --fleet naming a file that does not exist WHEN synth runs THEN it says so and how to pass another', async () => {
    const { repo, old } = repoWithOutput();
    try {
      const run = await repo.run(['synth', '--offline', '--fleet', 'clusters/fleet.ts.orig', '--lock', 'clusters/fleet.lock.json']);
      assertRefused(run, repo, old, ExitCode.INVALID_INPUT, /fleet definition clusters\/fleet\.ts\.orig does not exist \(pass --fleet <file>\)/);
    } finally {
      repo.remove();
    }
  });

  test('GIVEN a GitOpsDelivery whose repoUrl carries a token WHEN synth runs THEN it is refused and the token is printed nowhere', async () => {
    const run = await assertFleetRefused(
      fleetFile('export default function defineFleet(fleet: Fleet): void {', VALID_BODY, '  new GitOpsDelivery(fleet, \'delivery\', { repoUrl: \'https://x-access-token:ghp_S3CRET@github.com/acme/fleet.git\', flux: {} });', '}'),
      // stderr names the URL with its credentials masked; the report (a CI artifact) names no URL authority at all
      /delivery fleet\/delivery: repoUrl https:\/\/(?:\*\*\*@github\.com|<server>)\/acme\/fleet\.git carries credentials/,
    );
    assert.match(run.stderr, /repoUrl https:\/\/\*\*\*@github\.com\/acme\/fleet\.git carries credentials/);
    assert.match(run.report.error, /repoUrl https:\/\/<server>\/acme\/fleet\.git carries credentials/);
    assert.ok(!`${run.stdout}${run.stderr}${JSON.stringify(run.report)}`.includes('S3CRET'));
  });

  test('GIVEN a ReferenceError WHEN plan runs THEN plan is refused alike, with its own command in the report', async () => {
    await assertFleetRefused(
      fleetFile('export default function defineFleet(fleet: Fleet): void {', '  new Cluster(fleet, eest);', '}'),
      /clusters\/fleet\.ts:3:22: ReferenceError: eest is not defined/,
      ['plan', '--offline'],
    );
  });

  test('GIVEN a ReferenceError WHEN check runs THEN check exits 2 (not 5): the fleet is invalid, not out of date', async () => {
    await assertFleetRefused(
      fleetFile('export default function defineFleet(fleet: Fleet): void {', '  new Cluster(fleet, eest);', '}'),
      /clusters\/fleet\.ts:3:22: ReferenceError: eest is not defined/,
      ['check', '--offline'],
    );
  });
});

describe('--kubeconfig mistakes: exit 2 before anything is contacted or written', () => {
  const cases: { name: string; prepare: (repo: SafetyRepo) => string; message: RegExp; args?: string[] }[] = [
    { name: 'a file that does not exist', prepare: () => '/nonexistent/kubeconfig', message: /--kubeconfig \/nonexistent\/kubeconfig does not exist; pass a readable kubeconfig file, or leave --kubeconfig out/ },
    { name: 'a directory', prepare: (repo) => repo.dir, message: /--kubeconfig .* is a directory, not a kubeconfig file/ },
    {
      name: 'a file that is not YAML (its content never printed)',
      prepare: (repo) => {
        repo.writeFile('kc.yaml', 'users: [\n  token: s3cret-in-a-broken-file\n');
        return join(repo.dir, 'kc.yaml');
      },
      message: /--kubeconfig .*kc\.yaml is not a kubeconfig \(YAML with clusters, users and contexts\)/,
    },
    {
      name: 'a YAML file with no contexts',
      prepare: (repo) => {
        repo.writeFile('kc.yaml', 'greeting: hello\n');
        return join(repo.dir, 'kc.yaml');
      },
      message: /--kubeconfig .*kc\.yaml has no contexts \(is it a kubeconfig\?\)/,
    },
    { name: 'a missing file, even with --offline', prepare: () => '/nonexistent/kubeconfig', message: /--kubeconfig \/nonexistent\/kubeconfig does not exist/, args: ['synth', '--offline'] },
    { name: 'a missing file, for observe', prepare: () => '/nonexistent/kubeconfig', message: /--kubeconfig \/nonexistent\/kubeconfig does not exist/, args: ['observe'] },
  ];
  for (const c of cases) {
    test(`GIVEN --kubeconfig naming ${c.name} WHEN ${(c.args ?? ['synth']).join(' ')} runs THEN exit 2 and nothing is written`, async () => {
      const { repo, old } = repoWithOutput();
      try {
        const args = c.args ?? ['synth'];
        const run = await repo.run([...args, '--kubeconfig', c.prepare(repo)]);
        assertRefused(run, repo, old, ExitCode.INVALID_INPUT, c.message, args[0]);
        assert.ok(!`${run.stdout}${run.stderr}`.includes('s3cret'));
        assert.doesNotMatch(run.stderr, /observing/);
      } finally {
        repo.remove();
      }
    });
  }

  test('GIVEN no kubeconfig at all (a fresh clone) WHEN synth runs THEN every cluster is stale, exit 0, dist/ and the lock are rewritten byte for byte', async () => {
    const { repo, old } = repoWithOutput();
    const home = mkdtempSync(join(tmpdir(), 'mirrorc-empty-home-'));
    try {
      const run = await repo.run(['synth'], { env: { HOME: home, KUBECONFIG: '' } });
      assert.equal(run.code, ExitCode.OK, run.stderr);
      assert.match(run.stderr, /WARNING: 2 cluster observations failed/);
      assert.match(run.stderr, /cluster "b": kubeconfig ~\/\.kube\/config does not exist/);
      assertNoStackTrace(run.stderr);
      assertOneOf(repo.hash(), { old }, 'fresh clone');
      assert.equal(run.report.exitCode, ExitCode.OK);
      assert.match(run.report.targets[0].error, /kubeconfig ~\/\.kube\/config does not exist/);
    } finally {
      repo.remove();
      rmSync(home, { recursive: true, force: true });
    }
  });

  test('GIVEN a cluster whose own access.kubeconfig file is missing WHEN synth runs THEN that cluster is stale with the path named, no stale time starts, exit 0', async () => {
    const { repo, old } = repoWithOutput();
    try {
      repo.writeFile('clusters/fleet.ts', fleetFile(
        'export default function defineFleet(fleet: Fleet): void {',
        '  const a = new Cluster(fleet, \'a\', { access: { kubeconfig: \'clusters/missing-a.yaml\' } });',
        '  const b = new Cluster(fleet, \'b\', { access: { kubeconfig: \'clusters/missing-b.yaml\' } });',
        '  new Link(fleet, \'a-from-b\', { source: a, target: b });',
        '}',
      ));
      const run = await repo.run(['synth']);
      assert.equal(run.code, ExitCode.OK, run.stderr);
      assert.match(run.stderr, /target cluster "b": kubeconfig clusters\/missing-b\.yaml does not exist; check the cluster's access settings/);
      assertNoStackTrace(run.stderr);
      assertOneOf(repo.hash(), { old }, 'access.kubeconfig missing');
      assert.equal(run.report.targets[0].staleSince, null);
    } finally {
      repo.remove();
    }
  });
});

describe('credentials in a kubeconfig are printed nowhere', () => {
  let fleet: KubeFleet | undefined;

  before(async (t) => {
    fleet = await kubeFleetForTests(t as never, ['paris'], { readerRules: observationRules({ source: true, target: true }) });
  });

  after(async () => {
    await fleet?.stop();
  });

  /** A kubeconfig for contexts london and paris (both the one real API server, or `server` when given) with `server` rewritten by `rewrite`. */
  function writeKubeconfig(repo: SafetyRepo, rewrite: (server: string) => string): string {
    const cfg = fleet ? parse(readFileSync(fleet.kubeconfig('admin'), 'utf8')) : undefined;
    const server: string = cfg?.clusters[0].cluster.server ?? 'https://127.0.0.1:1';
    const config = {
      apiVersion: 'v1', kind: 'Config',
      clusters: [{ name: 'c', cluster: { ...(cfg?.clusters[0].cluster ?? { 'insecure-skip-tls-verify': true }), server: rewrite(server) } }],
      users: [{ name: 'u', user: cfg?.users[0].user ?? { token: 'T0KEN-s3cret' } }],
      contexts: [{ name: 'london', context: { cluster: 'c', user: 'u' } }, { name: 'paris', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'paris',
    };
    const file = join(repo.dir, 'kubeconfig.yaml');
    writeFileSync(file, stringify(config), { mode: 0o600 });
    return file;
  }

  /** Runs a live synth of london ← paris with that kubeconfig; asserts `secret` appears in no output, file or report. */
  async function assertSecretNowhere(rewrite: (server: string) => string, secret: string): Promise<void> {
    const { repo, old } = repoWithOutput();
    try {
      repo.writeFile('clusters/fleet.ts', fleetFile(
        'export default function defineFleet(fleet: Fleet): void {',
        '  new Link(fleet, \'london-from-paris\', { source: new Cluster(fleet, \'london\'), target: new Cluster(fleet, \'paris\') });',
        '}',
      ));
      repo.writeLock({ format: 1, targets: {}, sources: {} });
      const before = repo.hash();
      const kubeconfig = writeKubeconfig(repo, rewrite);
      const run = await repo.run(['synth', '--kubeconfig', kubeconfig, '--timeout', '30000']);
      assert.equal(run.code, ExitCode.OK, run.stderr);
      assertNoStackTrace(run.stderr);
      assert.ok(run.report, 'report written');
      assert.notEqual(repo.hash(), old);
      assert.notEqual(repo.hash(), before, 'the new complete tree was written');
      const everything = [run.stdout, run.stderr, readFileSync(repo.reportFile, 'utf8'), readFileSync(repo.lockFile, 'utf8'), ...[...readFiles(repo.outDir).values()].map(String)];
      for (const text of everything) assert.ok(!text.includes(secret), `the secret leaked:\n${text}`);
    } finally {
      repo.remove();
    }
  }

  test('GIVEN a kubeconfig whose server URL has user:s3cret@ (a real API server) WHEN synth runs THEN s3cret is in no output, report, lock or dist/ file', async () => {
    await assertSecretNowhere((server) => server.replace('https://', 'https://mirrorc:s3cret-pass@'), 's3cret-pass');
  });

  test('GIVEN a kubeconfig whose server URL has ?token= (a real API server) WHEN synth runs THEN the token is in no output, report, lock or dist/ file', async () => {
    await assertSecretNowhere((server) => `${server}/?token=s3cret-query-token`, 's3cret-query-token');
  });

  test('GIVEN user:s3cret@ in the URL of a closed port WHEN synth runs THEN the connection error names the address, never the credential', async () => {
    const { repo, old } = repoWithOutput();
    try {
      repo.writeFile('kc.yaml', stringify({
        apiVersion: 'v1', kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: 'https://admin:s3cret-closed@127.0.0.1:1', 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'u', user: { token: 'bearer-s3cret' } }],
        contexts: [{ name: 'a', context: { cluster: 'c', user: 'u' } }, { name: 'b', context: { cluster: 'c', user: 'u' } }],
      }));
      const run = await repo.run(['synth', '--kubeconfig', join(repo.dir, 'kc.yaml')]);
      assert.equal(run.code, ExitCode.OK, run.stderr);
      // The bounded transport reports the socket's error (the address, without the URL's user part).
      assert.match(run.stderr, /target cluster "b": list services .*: ECONNREFUSED: connect ECONNREFUSED 127\.0\.0\.1:1/);
      assertNoStackTrace(run.stderr);
      const newTree = repo.hash();
      assertOneOf(newTree, { old, new: newTree }, 'closed port');
      const everything = `${run.stdout}${run.stderr}${readFileSync(repo.reportFile, 'utf8')}${readFileSync(repo.lockFile, 'utf8')}`;
      assert.ok(!everything.includes('s3cret'), everything);
      // The report (a CI artifact) names no API server address (report hygiene, docs/ci.md); stderr does.
      assert.match(run.report.targets[0].error, /ECONNREFUSED <server>/);
      assert.ok(!readFileSync(repo.reportFile, 'utf8').includes('127.0.0.1:1'));
    } finally {
      repo.remove();
    }
  });
});

describe('cdk8s synth runs mirrorc\'s own atomic writer into dist/', () => {
  test('GIVEN a valid fleet WHEN npx cdk8s synth runs THEN dist/ and the lock are exactly what synth --offline writes', async () => {
    const { repo, old } = repoWithOutput();
    try {
      repo.linkCheckout();
      rmSync(repo.outDir, { recursive: true });
      const run = await repo.runCdk8sSynth();
      assert.equal(run.code, 0, `${run.stdout}${run.stderr}`);
      assertOneOf(repo.hash(), { 'synth --offline': old }, 'cdk8s synth');
    } finally {
      repo.remove();
    }
  });

  test('GIVEN a fleet with a ReferenceError WHEN npx cdk8s synth runs THEN it fails with mirrorc\'s message and dist/ and the lock are byte-identical', async () => {
    const { repo, old } = repoWithOutput();
    try {
      repo.linkCheckout();
      repo.writeFile('clusters/fleet.ts', fleetFile('export default function defineFleet(fleet: Fleet): void {', '  new Cluster(fleet, eest);', '}'));
      const run = await repo.runCdk8sSynth();
      assert.notEqual(run.code, 0);
      assert.match(run.stderr, /error: clusters\/fleet\.ts:3:22: ReferenceError: eest is not defined/);
      // cdk8s-cli reports mirrorc's exit code (2) in its own words.
      assert.match(run.stderr, /returned a non-zero exit code 2/);
      assertOneOf(repo.hash(), { old }, 'cdk8s synth with a broken fleet');
    } finally {
      repo.remove();
    }
  });
});

describe('the report is written on every failure', () => {
  /** A preload that breaks rendering inside mirrorc: an unexpected failure (a bug), injected without touching mirrorc's code. */
  function injectRenderFault(repo: SafetyRepo, thrown: string): Record<string, string> {
    const file = join(repo.dir, 'inject-render-fault.mjs');
    writeFileSync(file, [
      'import { createRequire } from \'node:module\';',
      `const { ApiObject } = createRequire(${JSON.stringify(join(REPO_ROOT, 'package.json'))})('cdk8s');`,
      // Mirrors are rendered from plain objects (src/compile/kube-objects.ts), not constructs, and a source
      // synth skips renders nothing; but every run renders the base unit of each cluster that is no link's
      // source (its reader identity), whose chart's objects are picked out with ApiObject.isApiObject
      // (render-files.ts chartObjects); their JSON no longer always goes through toJson (object-json.ts).
      `ApiObject.isApiObject = function () { throw ${thrown}; };`,
    ].join('\n'));
    return { NODE_OPTIONS: `--import ${pathToFileURL(file).href}` };
  }

  test('GIVEN an internal failure while rendering (an injected RangeError) WHEN synth runs THEN exit 1, the stack is shown, the report says what happened, dist/ and the lock are untouched', async () => {
    const { repo, old } = repoWithOutput();
    try {
      const run = await repo.run(['synth', '--offline'], { env: injectRenderFault(repo, 'new RangeError(\'injected render fault\')') });
      assert.equal(run.code, ExitCode.INTERNAL, run.stderr);
      assert.match(run.stderr, /error: unexpected failure \(a bug in mirrorc; please report it with this output\): RangeError: injected render fault/);
      assert.match(run.stderr, /\n\s+at .+:\d+:\d+/, 'a bug shows its stack');
      assertOneOf(repo.hash(), { old }, 'internal failure');
      assert.ok(run.report, 'report written');
      assert.equal(run.report.exitCode, ExitCode.INTERNAL);
      assert.match(run.report.error, /unexpected failure .*RangeError: injected render fault/);
    } finally {
      repo.remove();
    }
  });

  test('GIVEN an internal failure that throws a non-Error value WHEN plan runs THEN exit 1 and the report says what was thrown', async () => {
    const { repo, old } = repoWithOutput();
    try {
      const run = await repo.run(['plan', '--offline'], { env: injectRenderFault(repo, '42') });
      assert.equal(run.code, ExitCode.INTERNAL, run.stderr);
      assert.match(run.stderr, /unexpected failure .*: 42 \(thrown as a number, not an Error\)/);
      assertOneOf(repo.hash(), { old }, 'internal failure, non-Error');
      assert.equal(run.report.command, 'plan');
      assert.equal(run.report.exitCode, ExitCode.INTERNAL);
      assert.match(run.report.error, /42 \(thrown as a number, not an Error\)/);
    } finally {
      repo.remove();
    }
  });

  const commandLines: { args: string[]; message: RegExp; command: string }[] = [
    { args: ['synth', '--no-such-option'], message: /unknown option --no-such-option \(mirrorc synth --help lists the options\)/, command: 'synth' },
    { args: ['plan', '--timeout', 'soon'], message: /--timeout must be a positive number of milliseconds, not "soon"/, command: 'plan' },
    { args: ['deploy'], message: /unknown command "deploy"/, command: 'synth' },
    { args: ['check', '--quiet', '--verbose'], message: /--quiet and --verbose exclude each other/, command: 'check' },
  ];
  for (const c of commandLines) {
    test(`GIVEN the invalid command line "${c.args.join(' ')}" WHEN mirrorc runs THEN exit 2 and the report is still written`, async () => {
      const { repo, old } = repoWithOutput();
      try {
        const run = await repo.run(c.args);
        assertRefused(run, repo, old, ExitCode.INVALID_INPUT, c.message, c.command);
      } finally {
        repo.remove();
      }
    });
  }

  test('GIVEN a report path that cannot be written WHEN synth succeeds THEN exit 8 with the reason, and dist/ holds the new complete tree', async () => {
    const { repo, old } = repoWithOutput();
    try {
      mkdirSync(join(repo.dir, 'report-is-a-dir'));
      const run = await repo.run(['synth', '--offline', '--report', join(repo.dir, 'report-is-a-dir')], { report: false });
      assert.equal(run.code, ExitCode.WRITE_FAILED, run.stderr);
      assert.match(run.stderr, /error: the report .*report-is-a-dir could not be written: /);
      assertNoStackTrace(run.stderr);
      assertOneOf(repo.hash(), { old }, 'report unwritable');
    } finally {
      repo.remove();
    }
  });
});
