/** `npm run bench -- --dir <dir>`: a missing scratch folder is created; one that cannot be is a clear error, not a stack. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

function bench(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/main.ts', ...args], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('bench --dir: a folder that does not exist is created; a file there is exit 2 with one line, no stack', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'mirrorc-bench-dir-'));
  try {
    // GIVEN a --dir two levels below an existing folder, and a --dir below a plain file
    const missing = join(scratch, 'a', 'b');
    const file = join(scratch, 'file');
    writeFileSync(file, 'x');
    // WHEN the smallest benchmark runs in each (kept, so the folder shows it was used)
    const created = bench(['--dir', missing, '--no-example', '--sizes', '2x1', '--runs', 'cold', '--rounds', '1', '--keep']);
    const blocked = bench(['--dir', join(file, 'sub'), '--no-example', '--sizes', '2x1', '--runs', 'cold', '--rounds', '1']);
    // THEN the first ran there; the second says what is wrong with --dir
    assert.equal(created.status, 0, created.stderr);
    assert.ok(existsSync(missing));
    assert.equal(readdirSync(missing).filter((f) => f.startsWith('mirrorc-bench-')).length, 1);
    assert.equal(blocked.status, 2);
    assert.match(blocked.stderr, /^error: --dir .*file\/sub cannot be created/m);
    assert.doesNotMatch(blocked.stderr, /^\s+at /m);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

test('bench runs synth from the compiled lib/ by default and from the sources with --tsx, each size --rounds times; a bad --flux-size or --rounds is exit 2', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'mirrorc-bench-code-'));
  try {
    // GIVEN the smallest fleets WHEN they run compiled in two rounds, and once with --tsx
    const compiled = bench(['--dir', scratch, '--no-example', '--sizes', '2x1,2x2', '--runs', 'cold', '--rounds', '2', '--json', join(scratch, 'compiled.json')]);
    const sources = bench(['--dir', scratch, '--no-example', '--sizes', '2x1', '--runs', 'cold', '--rounds', '1', '--tsx', '--json', join(scratch, 'tsx.json')]);
    const badFlux = bench(['--dir', scratch, '--no-example', '--sizes', '2x1', '--flux-size', '3x1']);
    const badRounds = bench(['--dir', scratch, '--no-example', '--sizes', '2x1', '--rounds', '0']);
    // THEN both synthesise, each says which code it ran, the JSON records it; no Flux phase for a size other than 10x250
    assert.equal(compiled.status, 0, compiled.stderr);
    assert.match(compiled.stdout, /^synth: +the compiled code \(lib\/pipeline\/run-synth\.js\)/m);
    const results = JSON.parse(readFileSync(join(scratch, 'compiled.json'), 'utf8')) as { code: string; synth: { size: string; run: string; round: number }[]; delivery: unknown[] };
    assert.equal(results.code, 'compiled');
    // Every size's cold run in each round, the table's order; the delivery units measured in the first round only.
    assert.deepEqual(results.synth.map((m) => `${m.size} ${m.run} ${m.round}`), ['2x1 cold 1', '2x1 cold 2', '2x2 cold 1', '2x2 cold 2']);
    assert.equal(results.delivery.length, 2);
    assert.match(compiled.stderr, /^bench: 2x2 \(round 2 of 2\): generating[^\n]*\n(?:.*\n)*?bench: 2x1 \(round 2 of 2\): generating/m, 'the second round runs the sizes in reverse order');
    assert.equal(sources.status, 0, sources.stderr);
    assert.match(sources.stdout, /^synth: +the TypeScript sources through tsx/m);
    assert.equal(JSON.parse(readFileSync(join(scratch, 'tsx.json'), 'utf8')).code, 'tsx');
    assert.doesNotMatch(compiled.stdout, /Flux reconcile/);
    assert.equal(badFlux.status, 2);
    assert.match(badFlux.stderr, /^error: --flux-size 3x1 is not one of --sizes \(2x1\)/m);
    assert.equal(badRounds.status, 2);
    assert.match(badRounds.stderr, /^error: --rounds must be a positive whole number, not "0"/m);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

test('bench from a clean clone without the test binaries: the Flux phase and the kustomize timing say how to build them, the synth runs still run, nothing is built', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'mirrorc-bench-nobins-'));
  try {
    // GIVEN a binary cache that holds nothing (and no KUBE_TEST_ASSETS / FLUX_TEST_ASSETS / KUBECTL)
    const env: NodeJS.ProcessEnv = { ...process.env, KUBE_TEST_BINS_CACHE: join(scratch, 'empty-cache') };
    for (const k of ['KUBE_TEST_ASSETS', 'FLUX_TEST_ASSETS', 'KUBECTL']) delete env[k];
    // WHEN the bench runs a size with the Flux phase
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/main.ts', '--dir', scratch, '--no-example', '--sizes', '2x1', '--flux-size', '2x1', '--runs', 'cold', '--rounds', '1'], { encoding: 'utf8', env });
    // THEN it succeeds, says how to build them, and built nothing into the cache
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^2x1 +cold +1 +0 /m);
    assert.match(r.stdout, /^Flux reconcile: skipped: .*run bash test\/harness\/build-kube-bins\.sh and bash test\/harness\/build-flux-controller\.sh/m);
    assert.match(r.stdout, /kubectl not built: run bash test\/harness\/build-kube-bins\.sh/);
    assert.ok(!existsSync(join(scratch, 'empty-cache')) || readdirSync(join(scratch, 'empty-cache')).every((f) => f.startsWith('.')), 'nothing built');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
