/**
 * `npm run bench`: offline synth of generated full-mesh fleets (cold, no change, one changed
 * service) and, with --observe, live observation of real API servers next to `kubectl get`.
 * See README "Benchmark".
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchObserve, observeTable, observeTargets, type ObserveMeasurement } from './observe-bench.js';
import { benchSynth, SYNTH_RUNS, type SynthMeasurement } from './run-synth-bench.js';
import { fluxSize, parseRuns, parseSizes, positiveInt, sizeLabel, UsageError } from './bench-options.js';
import { binariesMissing, fluxBinariesMissing, fluxTable, type FluxMeasurement } from './flux-bench.js';
import { argoCdTable, type ArgoCdMeasurement } from './argocd-bench.js';
import { clusterNames } from './generate-fleet.js';
import { CompiledLibError, ensureCompiledLib, type SynthCode } from './compiled-lib.js';
import { sortedRuns, synthTable } from './synth-table.js';
import { targetLines } from './bench-targets.js';
import { deliveryTable, type DeliveryMeasurement } from './delivery-bench.js';

const USAGE = `usage: npm run bench -- [options]

  --sizes <NxS,...>   generated fleets: N clusters in full mesh x S services each (default 5x100,10x250,20x250,20x500)
  --runs <list>       of cold,nochange,onechange (default all three)
  --rounds <n>        every size's runs n times, each round in a fresh repository, the sizes in
                      alternating order (as given, reversed, as given, ...); the targets use each
                      figure's median over the rounds, a failed round fails its target, the peak
                      RSS is the largest (default 3); the delivery units and the Flux phase are
                      measured in the first round only
  --no-example        skip the repository's example fleet (clusters/fleet.ts)
  --flux-size <NxS>   one of --sizes whose first cluster's units the real Flux kustomize-controller
                      reconciles after the synth runs (default 10x250 when that size runs)
  --no-flux           no Flux phase
  --argocd-size <NxS> one of --sizes whose first cluster a real Argo CD syncs through the generated
                      ApplicationSet after the synth runs (first sync, one change, splits under
                      polling; default 10x250 when that size runs)
  --no-argocd         no Argo CD phase
  --tsx               run synth from the TypeScript sources through tsx (default: the compiled
                      lib/, as npm run synth does; rebuilt first when src/ changed)
  --observe           instead: live observation of real API servers next to kubectl get
  --targets <K>       live mode: API servers (default 2)
  --services <S>      live mode: services per API server (default 200)
  --seed <n>          seed of the generated metadata (default 1)
  --json <file>       also write the results as JSON
  --dir <dir>         scratch directory (default: the OS temp dir)
  --keep              keep the generated repositories
  -h, --help          show this help`;

const DEFAULT_SIZES = '5x100,10x250,20x250,20x500';

/**
 * Rounds of every size's runs. One pair of cold runs on this 2-core VM gave a 20x250 -> 20x500 CPU
 * ratio anywhere from 1.55x to 2.46x (the kernel's share varies most: fresh pages the hypervisor must
 * back, a file system still discarding earlier deletions); the median of three rounds in alternating
 * order is what the targets read (docs/benchmark.md, "Rounds").
 */
const DEFAULT_ROUNDS = 3;

/** The scratch directory: `--dir`, created when missing, or the OS temp dir. */
function scratchDir(dir: string | undefined): string {
  if (dir === undefined) return tmpdir();
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw new UsageError(`--dir ${dir} cannot be created (${(e as Error).message}); pass a folder that exists or can be created`);
  }
  if (!statSync(dir).isDirectory()) throw new UsageError(`--dir ${dir} is not a folder`);
  return dir;
}

/** The machine and its load, printed above the figures. */
function machine(): Record<string, string> {
  let uptime = '';
  try {
    uptime = execFileSync('uptime', { encoding: 'utf8' }).trim();
  } catch {
    uptime = `load average: ${loadavg().map((l) => l.toFixed(2)).join(', ')}`;
  }
  return {
    date: new Date().toISOString(),
    node: process.version,
    cpus: `${cpus().length} x ${cpus()[0]?.model ?? '?'}`,
    memory: `${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
    uptime,
  };
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      sizes: { type: 'string', default: DEFAULT_SIZES },
      runs: { type: 'string', default: SYNTH_RUNS.join(',') },
      rounds: { type: 'string', default: String(DEFAULT_ROUNDS) },
      'no-example': { type: 'boolean', default: false },
      'flux-size': { type: 'string' },
      'no-flux': { type: 'boolean', default: false },
      'argocd-size': { type: 'string' },
      'no-argocd': { type: 'boolean', default: false },
      tsx: { type: 'boolean', default: false },
      observe: { type: 'boolean', default: false },
      targets: { type: 'string', default: '2' },
      services: { type: 'string', default: '200' },
      seed: { type: 'string', default: '1' },
      json: { type: 'string' },
      dir: { type: 'string' },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const seed = positiveInt('seed', values.seed);
  const before = machine();
  const out = (line = ''): boolean => process.stdout.write(`${line}\n`);
  out(`machine: ${before.cpus}, ${before.memory}, Node ${before.node}`);
  out(`before:  ${before.uptime}`);
  const code: SynthCode = values.tsx ? 'tsx' : 'compiled';
  if (!values.observe) {
    if (code === 'compiled') ensureCompiledLib((line) => process.stderr.write(`${line}\n`));
    out(`synth:   ${code === 'compiled' ? 'the compiled code (lib/pipeline/run-synth.js), as npm run synth runs it' : 'the TypeScript sources through tsx (--tsx)'}`);
  }
  const workRoot = mkdtempSync(join(scratchDir(values.dir), 'mirrorc-bench-'));
  let synth: SynthMeasurement[] = [];
  let observe: ObserveMeasurement[] = [];
  const delivery: DeliveryMeasurement[] = [];
  const flux: FluxMeasurement[] = [];
  let fluxSkipped: string | undefined;
  const argoCd: ArgoCdMeasurement[] = [];
  let argoCdSkipped: string | undefined;
  try {
    if (values.observe) {
      const shape = { targets: positiveInt('targets', values.targets), services: positiveInt('services', values.services), seed };
      out(`live observation: ${shape.targets} API servers x ${shape.services} services`);
      observe = await benchObserve(shape, { log: (line) => process.stderr.write(`${line}\n`) });
      out();
      out(observeTable(observe));
      out();
      for (const line of observeTargets(observe)) out(line);
    } else {
      const sizes = parseSizes(values.sizes);
      const runs = parseRuns(values.runs);
      const shapes = [...(values['no-example'] ? [] : ['example' as const]), ...sizes.map((s) => ({ ...s, seed }))];
      let fluxFor = fluxSize(sizes, values['flux-size'], values['no-flux']);
      if (fluxFor !== undefined) {
        fluxSkipped = fluxBinariesMissing();
        if (fluxSkipped !== undefined) fluxFor = undefined;
      }
      // (the same size rule as the Flux phase's)
      let argoCdFor = fluxSize(sizes, values['argocd-size'], values['no-argocd'], 'argocd');
      if (argoCdFor !== undefined) {
        argoCdSkipped = binariesMissing(['test/harness/build-kube-bins.sh', 'test/harness/build-argocd.sh'], 'the Argo CD phase', 'KUBE_TEST_ASSETS / ARGOCD_ASSETS');
        if (argoCdSkipped !== undefined) argoCdFor = undefined;
      }
      const rounds = positiveInt('rounds', values.rounds);
      for (let round = 1; round <= rounds; round++) {
        // Alternating order, so that a machine drifting during the bench does not favour one size.
        const ordered = round % 2 === 1 ? [...shapes.entries()] : [...shapes.entries()].reverse();
        for (const [i, shape] of ordered) {
          const label = shape === 'example' ? 'example fleet' : `${shape.clusters}x${shape.services}`;
          const first = round === 1;
          process.stderr.write(`bench: ${label}${rounds > 1 ? ` (round ${round} of ${rounds})` : ''}: generating and running ${runs.join(', ')}...\n`);
          const workDir = join(workRoot, `${first ? '' : `r${round}-`}${i}-${label.replace(/\s/g, '-')}`);
          synth.push(...(await benchSynth(shape, {
            workDir,
            runs,
            code,
            round,
            // Every size's repository stays until the whole bench is done (the finally below removes them):
            // deleting 274,000-545,000 files just before the next size's cold run made that run measure the
            // file system's inode allocation after a mass deletion (docs/benchmark.md, "Reading the figures").
            keep: true,
            onResult: (m) => process.stderr.write(`bench: ${m.size} ${m.run}${rounds > 1 ? ` (round ${m.round})` : ''}: exit ${m.exitCode}, ${(m.wallMs / 1000).toFixed(2)} s wall, ${m.writes.written} files written${m.error ? `: ${m.error}` : ''}\n`),
            ...(first ? { onDelivery: (d: DeliveryMeasurement) => delivery.push(d) } : {}),
            ...(first && shape !== 'example' && sizeLabel(shape) === fluxFor
              ? { flux: { source: clusterNames(shape.clusters)[0]!, onResult: (f: FluxMeasurement) => flux.push(f), log: (line: string) => process.stderr.write(`${line}\n`) } }
              : {}),
            ...(first && shape !== 'example' && sizeLabel(shape) === argoCdFor
              ? { argoCd: { source: clusterNames(shape.clusters)[0]!, onResult: (a: ArgoCdMeasurement) => argoCd.push(a), log: (line: string) => process.stderr.write(`${line}\n`) } }
              : {}),
          })));
        }
      }
      synth = sortedRuns(synth, shapes.map((s) => (s === 'example' ? 'example' : sizeLabel(s))));
      out();
      out(synthTable(synth));
      out();
      out('delivery units (docs/delivery-units.md): the largest unit of each fleet, rendered by kubectl kustomize (kustomize v5.8.1):');
      out(deliveryTable(delivery));
      out();
      if (flux.length > 0) {
        out(`Flux reconcile (real kustomize-controller v1.9.6 and kube-apiserver on 127.0.0.1; one source's units; docs/benchmark.md "Flux phase"):`);
        out(fluxTable(flux));
        for (const f of flux.filter((x) => x.firstError !== undefined)) out(`  ${f.size} first controller error: ${f.firstError!.slice(0, 300)}`);
        for (const f of flux.filter((x) => x.error !== undefined)) out(`  ${f.size} flux: ${f.error!.split('\n')[0]}`);
        out();
      } else if (fluxSkipped !== undefined) {
        out(`Flux reconcile: skipped: ${fluxSkipped}`);
        out();
      }
      if (argoCd.length > 0) {
        out(`Argo CD sync (real Argo CD v3.6.1 and kube-apiserver on 127.0.0.1; one source, one Application per unit family; docs/benchmark.md "Argo CD phase"):`);
        out(argoCdTable(argoCd));
        for (const a of argoCd.filter((x) => x.error !== undefined)) out(`  ${a.size} argocd: ${a.error!.split('\n')[0]}`);
        out();
      } else if (argoCdSkipped !== undefined) {
        out(`Argo CD sync: skipped: ${argoCdSkipped}`);
        out();
      }
      out('targets (printed, never asserted; docs/benchmark.md "Targets"):');
      for (const line of targetLines(synth, delivery)) out(line);
    }
  } finally {
    if (!values.keep) rmSync(workRoot, { recursive: true, force: true });
    else out(`kept: ${workRoot}`);
  }
  const after = machine();
  out(`after:   ${after.uptime}`);
  if (values.json) {
    writeFileSync(values.json, `${JSON.stringify({ machine: { ...before, uptimeAfter: after.uptime }, code, synth, delivery, flux, ...(fluxSkipped !== undefined ? { fluxSkipped } : {}), argoCd, ...(argoCdSkipped !== undefined ? { argoCdSkipped } : {}), observe }, null, 2)}\n`);
    out(`results: ${values.json}`);
  }
  const failed = synth.some((m) => m.exitCode !== 0) || observe.some((m) => m.error !== undefined) || flux.some((f) => f.error !== undefined) || argoCd.some((a) => a.error !== undefined);
  return failed ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`error: ${(e as Error).message}\n\n${USAGE}\n`);
      process.exit(2);
    }
    if (e instanceof CompiledLibError) {
      process.stderr.write(`error: ${e.message}\n`);
      process.exit(1);
    }
    if ((e as Error).name === 'KubeFleetUnavailableError') {
      process.stderr.write(`error: the live mode needs real API servers, which could not start: ${(e as Error).message}\n` +
        'Build the binaries with: bash test/harness/build-kube-bins.sh (or point KUBE_TEST_ASSETS at kube-apiserver, etcd and kubectl)\n');
      process.exit(1);
    }
    process.stderr.write(`bench: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
