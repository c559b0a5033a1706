/** The command line itself (src/cli/main.ts): the new options reach the run, and bad combinations are exit 2. */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { didYouMean } from '../../src/cli/did-you-mean.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { readTree } from '../../src/emit/write-output.js';
import { exampleCopy } from './support/example-copy.js';

const MAIN = resolve('src/cli/main.ts');
const TSX = import.meta.resolve('tsx');

/** The environment of a child: none of the npm_* variables of an `npm test` that may run this. */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k))), ...extra };
}

/** Runs `mirrorc <args>` in a child process (in `cwd`, default this repository). */
function mirrorc(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', TSX, MAIN, ...args], { encoding: 'utf8', cwd: options.cwd, env: cleanEnv(options.env) });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs `mirrorc <args>` without waiting (for a report into a pipe that the test reads). */
function mirrorcAsync(args: string[]): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', TSX, MAIN, ...args], { env: cleanEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((done, fail) => {
    child.on('error', fail);
    child.on('close', (status) => done({ status, stderr }));
  });
}

test('synth --offline --source a,b --report F --quiet: compiles those shards, writes the report, prints nothing', () => {
  const ws = exampleCopy();
  try {
    // GIVEN a changed east gateway, which west mirrors
    ws.editLock('198.51.100.7', '198.51.100.8');
    const before = readTree(ws.outDir);
    const reportFile = join(ws.dir, 'report.json');
    // WHEN two shards are compiled through the CLI, quietly
    const r = mirrorc(['synth', '--offline', '--source', 'west,london', '--report', reportFile, '--quiet', '--lock', ws.lockFile, '--out', ws.outDir]);
    // THEN it succeeds silently, west changed, east was not compiled, and the report says so
    assert.equal(r.status, ExitCode.OK, r.stderr);
    assert.equal(r.stdout + r.stderr, '');
    const report = JSON.parse(readFileSync(reportFile, 'utf8'));
    assert.deepEqual(report.shard, ['london', 'west']);
    // (west's one changed file is its payments-east mirror's: the Service, Endpoints and EndpointSlice are its documents)
    assert.deepEqual(report.sources.map((s: { cluster: string; compiled: boolean; changed: string[] }) => [s.cluster, s.compiled, s.changed.length]), [['ap', false, 0], ['east', false, 0], ['eu', false, 0], ['london', true, 0], ['us', false, 0], ['west', true, 1]]);
    const after = readTree(ws.outDir);
    const endpoints = (tree: Map<string, string>): unknown => {
      const objects = parseAllDocuments(tree.get('west/from-east/shop/service-payments-east.yaml')!).map((d) => d.toJS() as { kind: string; metadata: { name: string } });
      return objects.find((o) => o.kind === 'Endpoints' && o.metadata.name === 'payments-east');
    };
    assert.ok(endpoints(before));
    assert.notDeepEqual(endpoints(after), endpoints(before));
  } finally {
    ws.remove();
  }
});

test('--quiet with --verbose, and an unknown command, are invalid input', () => {
  const both = mirrorc(['synth', '--offline', '-q', '-v']);
  assert.equal(both.status, ExitCode.INVALID_INPUT);
  assert.match(both.stderr, /--quiet and --verbose exclude each other/);
  const unknown = mirrorc(['publish']);
  assert.equal(unknown.status, ExitCode.INVALID_INPUT);
  assert.match(unknown.stderr, /unknown command "publish"/);
  assert.match(unknown.stderr, /observe  observe and compile like synth, but write only the lock/);
});

test('--version prints the version of package.json, and nothing else', () => {
  const r = mirrorc(['--version']);
  assert.equal(r.status, ExitCode.OK, r.stderr);
  assert.equal(r.stdout, `${JSON.parse(readFileSync('package.json', 'utf8')).version}\n`);
});

test('each command has its own --help: its usage line, its description and only the options it takes', () => {
  // GIVEN each command WHEN its help is asked
  const help = Object.fromEntries(['synth', 'plan', 'check', 'observe', 'init'].map((c) => [c, mirrorc([c, '--help'])]));
  const general = mirrorc(['--help']);
  // THEN each exits 0 with a different text, naming the command and describing it
  for (const [command, r] of Object.entries(help)) {
    assert.equal(r.status, ExitCode.OK, r.stderr);
    assert.match(r.stdout, new RegExp(`^usage: mirrorc ${command} `));
  }
  assert.equal(new Set([...Object.values(help).map((r) => r.stdout), general.stdout]).size, 6);
  assert.match(help.plan!.stdout, /only print what would be added/);
  assert.match(help.check!.stdout, /exit 5 when/);
  // plan and check do not wait for the run lock; synth does; init takes no run option
  assert.doesNotMatch(help.plan!.stdout, /--wait <seconds>/);
  assert.match(help.synth!.stdout, /--wait <seconds>/);
  assert.doesNotMatch(help.init!.stdout, /--offline|--fleet/);
  assert.match(help.init!.stdout, /^usage: mirrorc init \[dir\]/);
  // the general help names every command and how to get a command's help
  for (const c of ['synth', 'plan', 'check', 'observe', 'init']) assert.match(general.stdout, new RegExp(`^  ${c} `, 'm'));
  assert.match(general.stdout, /mirrorc <command> --help/);
});

test('bare mirrorc prints the help and exits 2 without running synth; options without a command are an error', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mirrorc-bare-'));
  try {
    // GIVEN a folder with a fleet file that synth would load (and that would leave a trace)
    // WHEN mirrorc runs with no arguments there, and then with only options
    const bare = mirrorc([], { cwd: dir });
    const optionsOnly = mirrorc(['--offline'], { cwd: dir });
    // THEN the first prints the general help on stdout, the second names the missing command; both exit 2 and write nothing
    assert.equal(bare.status, ExitCode.INVALID_INPUT);
    assert.match(bare.stdout, /^usage: mirrorc <synth\|plan\|check\|observe>/);
    assert.equal(bare.stderr, '');
    assert.equal(optionsOnly.status, ExitCode.INVALID_INPUT);
    assert.match(optionsOnly.stderr, /no command given .*mirrorc synth --offline/);
    assert.deepEqual(readTree(dir), new Map());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--report - writes the JSON report to stdout; plan then prints its changes on stderr', () => {
  const ws = exampleCopy();
  try {
    // GIVEN a changed east gateway (plan has something to print)
    ws.editLock('198.51.100.7', '198.51.100.8');
    // WHEN plan and synth run with --report -
    const plan = mirrorc(['plan', '--offline', '--report', '-', '--lock', ws.lockFile, '--out', ws.outDir]);
    const synth = mirrorc(['synth', '--offline', '--quiet', '--report', '-', '--lock', ws.lockFile, '--out', ws.outDir]);
    // THEN stdout is exactly one report each, and plan's changes went to stderr
    assert.equal(plan.status, ExitCode.OK, plan.stderr);
    const planReport = JSON.parse(plan.stdout);
    assert.equal(planReport.command, 'plan');
    assert.deepEqual(planReport.sources.find((s: { cluster: string }) => s.cluster === 'west').changed.length, 1);
    assert.match(plan.stderr, /~ from-east\/shop\/service-payments-east\.yaml\n +Endpoints\/payments-east subsets/);
    assert.equal(synth.status, ExitCode.OK, synth.stderr);
    assert.equal(JSON.parse(synth.stdout).command, 'synth');
    assert.equal(readTree(ws.dir).has('-'), false);
  } finally {
    ws.remove();
  }
});

test('the report goes through a symbolic link and into a pipe in place: neither is replaced by a plain file', async () => {
  const ws = exampleCopy();
  try {
    // GIVEN a report path that is a symbolic link to a file, and one that is a named pipe with a reader
    const target = join(ws.dir, 'target.json');
    writeFileSync(target, 'old');
    const link = join(ws.dir, 'report-link');
    symlinkSync(target, link);
    const fifo = join(ws.dir, 'report-pipe');
    execFileSync('mkfifo', [fifo]);
    const cat = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'inherit'] });
    const reader = new Promise<string>((done, fail) => {
      let text = '';
      cat.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
      cat.on('error', fail);
      cat.on('close', () => done(text));
    });
    // WHEN synth writes its report to each
    const viaLink = mirrorc(['synth', '--offline', '--quiet', '--report', link, '--lock', ws.lockFile, '--out', ws.outDir]);
    const viaPipe = await mirrorcAsync(['synth', '--offline', '--quiet', '--report', fifo, '--lock', ws.lockFile, '--out', ws.outDir]);
    // THEN the link is still a link to the file, which holds the report; the pipe is still a pipe, and its reader got the report
    assert.equal(viaLink.status, ExitCode.OK, viaLink.stderr);
    assert.ok(lstatSync(link).isSymbolicLink());
    assert.equal(readlinkSync(link), target);
    assert.equal(JSON.parse(readFileSync(target, 'utf8')).command, 'synth');
    const stillFifo = lstatSync(fifo).isFIFO();
    if (!stillFifo) cat.kill(); // its open() would wait for a writer forever
    assert.equal(viaPipe.status, ExitCode.OK, viaPipe.stderr);
    assert.ok(stillFifo, 'the named pipe was replaced');
    assert.equal(JSON.parse(await reader).command, 'synth');
  } finally {
    ws.remove();
  }
});

test('a mistyped option or command gets the closest known one, not advice about positional arguments', () => {
  // GIVEN typos WHEN they are run
  const option = mirrorc(['synth', '--ofline']);
  const command = mirrorc(['synht', '--offline']);
  const unrelated = mirrorc(['plan', '--zzzzzz']);
  // THEN each is exit 2 with a suggestion (or none when nothing is close), and no parseArgs advice
  assert.equal(option.status, ExitCode.INVALID_INPUT);
  assert.match(option.stderr, /unknown option --ofline; did you mean --offline\? \(mirrorc synth --help lists the options\)/);
  assert.doesNotMatch(option.stderr, /positional/);
  assert.equal(command.status, ExitCode.INVALID_INPUT);
  assert.match(command.stderr, /unknown command "synht"; did you mean "synth"\?/);
  assert.equal(unrelated.status, ExitCode.INVALID_INPUT);
  assert.match(unrelated.stderr, /unknown option --zzzzzz \(mirrorc plan --help/);
  assert.doesNotMatch(unrelated.stderr, /did you mean/);
});

test('mirrorc <unknown-command> --help: "unknown command" and exit 2, not the general help with exit 0 (issue 39)', () => {
  const typo = mirrorc(['snyth', '--help']);
  const unrelated = mirrorc(['publish', '-h']);
  assert.equal(typo.status, ExitCode.INVALID_INPUT);
  assert.match(typo.stderr, /unknown command "snyth"; did you mean "synth"\?/);
  assert.equal(typo.stdout, '');
  assert.equal(unrelated.status, ExitCode.INVALID_INPUT);
  assert.match(unrelated.stderr, /unknown command "publish"/);
  // A known command's help, and the general one, are still exit 0.
  assert.equal(mirrorc(['explain', '--help']).status, ExitCode.OK);
  assert.equal(mirrorc(['--help']).status, ExitCode.OK);
});

test('run from a subdirectory of the fleet repository: the missing fleet file\'s error names the repository root (issue 39)', () => {
  const repo = mkdtempSync(join(tmpdir(), 'mirrorc-subdir-'));
  try {
    mkdirSync(join(repo, 'clusters'));
    writeFileSync(join(repo, 'clusters', 'fleet.ts'), 'export default function () {}\n');
    mkdirSync(join(repo, 'docs', 'modes'), { recursive: true });
    const r = mirrorc(['plan', '--offline'], { cwd: join(repo, 'docs', 'modes') });
    assert.equal(r.status, ExitCode.INVALID_INPUT);
    assert.match(r.stderr, /fleet definition clusters\/fleet\.ts does not exist \(pass --fleet <file>\)/);
    assert.ok(r.stderr.includes(`${join(repo, 'clusters', 'fleet.ts')} exists: ${repo} seems to be the fleet repository's root, run mirrorc there (cd ../..)`), r.stderr);
    // Where no folder above holds it, no hint.
    const elsewhere = mirrorc(['plan', '--offline', '--fleet', 'no/such/fleet.ts'], { cwd: join(repo, 'docs') });
    assert.equal(elsewhere.status, ExitCode.INVALID_INPUT);
    assert.doesNotMatch(elsewhere.stderr, /seems to be/);
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test('didYouMean: close names and prefixes match; far ones and ties do not', () => {
  assert.equal(didYouMean('--confirm-removal', ['--confirm-removals', '--offline']), '--confirm-removals');
  assert.equal(didYouMean('plna', ['synth', 'plan', 'check']), 'plan');
  assert.equal(didYouMean('obs', ['observe', 'offline']), 'observe');
  assert.equal(didYouMean('deploy', ['synth', 'plan', 'check', 'observe', 'init']), undefined);
  assert.equal(didYouMean('--out', ['--out', '--lock']), '--out');
  assert.equal(didYouMean('ab', ['ac', 'ad']), undefined);
});

test('npm run synth --offline (npm took --offline) is refused with the command to use; with mirrorc\'s own --offline it runs', () => {
  const ws = exampleCopy();
  try {
    // GIVEN the environment npm gives a script run as "npm run synth --offline"
    const npmEnv = { npm_config_offline: 'true', npm_lifecycle_event: 'synth' };
    const lock = readFileSync(ws.lockFile, 'utf8');
    // WHEN synth runs without and with its own --offline
    const swallowed = mirrorc(['synth', '--lock', ws.lockFile, '--out', ws.outDir], { env: npmEnv });
    const passed = mirrorc(['synth', '--offline', '--quiet', '--lock', ws.lockFile, '--out', ws.outDir], { env: npmEnv });
    // THEN the first is exit 2 naming "npm run synth -- --offline" and the lock is untouched; the second succeeds
    assert.equal(swallowed.status, ExitCode.INVALID_INPUT, swallowed.stderr);
    assert.match(swallowed.stderr, /npm run synth -- --offline/);
    assert.equal(readFileSync(ws.lockFile, 'utf8'), lock);
    assert.equal(passed.status, ExitCode.OK, passed.stderr);
  } finally {
    ws.remove();
  }
});

test('every refusal of the command line writes the --report file (an invalid --wait, --timeout, --quiet with --verbose)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mirrorc-cli-report-'));
  try {
    const cases: { args: string[]; error: RegExp }[] = [
      { args: ['--wait', 'soon'], error: /--wait must be a number of seconds/ },
      { args: ['--wait', ''], error: /--wait must be a number of seconds/ },
      { args: ['--timeout', '0'], error: /--timeout must be a positive number/ },
      { args: ['--quiet', '--verbose'], error: /--quiet and --verbose exclude each other/ },
    ];
    for (const [i, c] of cases.entries()) {
      const report = join(dir, `report-${i}.json`);
      const run = mirrorc(['synth', '--offline', '--report', report, ...c.args]);
      assert.equal(run.status, ExitCode.INVALID_INPUT, `${c.args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, c.error);
      const written = JSON.parse(readFileSync(report, 'utf8')) as { exitCode: number; error: string; command: string };
      assert.equal(written.exitCode, ExitCode.INVALID_INPUT, c.args.join(' '));
      assert.equal(written.command, 'synth');
      assert.match(written.error, c.error);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('status: its own help with only its options and exit codes 10-14; options it does not take, an unknown --output and an argument are exit 2', () => {
  // GIVEN status's help WHEN asked THEN it lists its options, not synth's, and its exit codes
  const help = mirrorc(['status', '--help']);
  assert.equal(help.status, ExitCode.OK, help.stderr);
  assert.match(help.stdout, /^usage: mirrorc status \[options\]/);
  assert.match(help.stdout, /--output <format>/);
  assert.match(help.stdout, /--kubeconfig <file>/);
  assert.doesNotMatch(help.stdout, /--offline|--wait|--confirm-removals|--report/);
  assert.match(help.stdout, /10 a mirror missing, unexpected or differing live, 11 a mirror with no ready endpoint/);
  // AND --output is status's alone
  assert.doesNotMatch(mirrorc(['synth', '--help']).stdout, /--output/);
  // WHEN it gets what it does not take THEN exit 2 with why (it contacts nothing: the example fleet's clusters are not reachable here)
  for (const [args, message] of [
    [['status', '--offline'], /status does not take --offline: it only reads/],
    [['status', '--output', 'yaml'], /--output must be table or json, not "yaml"/],
    [['status', 'london'], /status takes no argument, not "london"/],
  ] as const) {
    const r = mirrorc([...args]);
    assert.equal(r.status, ExitCode.INVALID_INPUT, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
});
