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
import { benchSynth, SYNTH_RUNS, type SynthMeasurement, type SynthRun } from './run-synth-bench.js';
import { synthTable, synthTargets } from './synth-table.js';
import { deliveryTable, deliveryTargets, type DeliveryMeasurement } from './delivery-bench.js';

const USAGE = `usage: npm run bench -- [options]

  --sizes <NxS,...>   generated fleets: N clusters in full mesh x S services each (default 5x100,10x250,20x250,20x500)
  --runs <list>       of cold,nochange,onechange (default all three)
  --no-example        skip the repository's example fleet (clusters/fleet.ts)
  --observe           instead: live observation of real API servers next to kubectl get
  --targets <K>       live mode: API servers (default 2)
  --services <S>      live mode: services per API server (default 200)
  --seed <n>          seed of the generated metadata (default 1)
  --json <file>       also write the results as JSON
  --dir <dir>         scratch directory (default: the OS temp dir)
  --keep              keep the generated repositories
  -h, --help          show this help`;

const DEFAULT_SIZES = '5x100,10x250,20x250,20x500';

function parseSizes(text: string): { clusters: number; services: number }[] {
  return text.split(',').map((s) => s.trim()).filter((s) => s !== '').map((s) => {
    const m = /^(\d+)x(\d+)$/.exec(s);
    if (!m || Number(m[1]) < 2 || Number(m[2]) < 1) throw new UsageError(`--sizes: "${s}" is not NxS with N >= 2 clusters and S >= 1 services`);
    return { clusters: Number(m[1]), services: Number(m[2]) };
  });
}

function parseRuns(text: string): SynthRun[] {
  const runs = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  for (const r of runs) if (!(SYNTH_RUNS as readonly string[]).includes(r)) throw new UsageError(`--runs: "${r}" is none of ${SYNTH_RUNS.join(', ')}`);
  return runs as SynthRun[];
}

function positiveInt(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a positive whole number, not "${text}"`);
  return n;
}

class UsageError extends Error {}

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
      'no-example': { type: 'boolean', default: false },
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
  const workRoot = mkdtempSync(join(scratchDir(values.dir), 'mirrorc-bench-'));
  let synth: SynthMeasurement[] = [];
  let observe: ObserveMeasurement[] = [];
  const delivery: DeliveryMeasurement[] = [];
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
      for (const [i, shape] of shapes.entries()) {
        const label = shape === 'example' ? 'example fleet' : `${shape.clusters}x${shape.services}`;
        process.stderr.write(`bench: ${label}: generating and running ${runs.join(', ')}...\n`);
        const workDir = join(workRoot, `${i}-${label.replace(/\s/g, '-')}`);
        synth.push(...(await benchSynth(shape, {
          workDir,
          runs,
          keep: values.keep,
          onResult: (m) => process.stderr.write(`bench: ${m.size} ${m.run}: exit ${m.exitCode}, ${(m.wallMs / 1000).toFixed(2)} s wall, ${m.writes.written} files written${m.error ? `: ${m.error}` : ''}\n`),
          onDelivery: (d) => delivery.push(d),
        })));
      }
      out();
      out(synthTable(synth));
      out();
      out('delivery units (docs/delivery-units.md): the largest unit of each fleet, rendered by kubectl kustomize (kustomize v5.8.1):');
      out(deliveryTable(delivery));
      out();
      out('targets (issues 9 and 18; printed, not asserted):');
      for (const line of [...synthTargets(synth), ...deliveryTargets(delivery)]) out(`  ${line}`);
    }
  } finally {
    if (!values.keep) rmSync(workRoot, { recursive: true, force: true });
    else out(`kept: ${workRoot}`);
  }
  const after = machine();
  out(`after:   ${after.uptime}`);
  if (values.json) {
    writeFileSync(values.json, `${JSON.stringify({ machine: { ...before, uptimeAfter: after.uptime }, synth, delivery, observe }, null, 2)}\n`);
    out(`results: ${values.json}`);
  }
  const failed = synth.some((m) => m.exitCode !== 0) || observe.some((m) => m.error !== undefined);
  return failed ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`error: ${(e as Error).message}\n\n${USAGE}\n`);
      process.exit(2);
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
