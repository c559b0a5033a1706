/** The command line's commands, options and usage text, in one place (the CI example is tested against them). */
import type { ParseArgsConfig } from 'node:util';

/** Commands, each mapped to the run mode of `runSynth`. */
export const COMMANDS = { synth: 'write', plan: 'plan', check: 'check', observe: 'observe' } as const;

/** A command name. */
export type Command = keyof typeof COMMANDS;

/** Options of every command, for `parseArgs`. */
export const CLI_OPTIONS = {
  fleet: { type: 'string' },
  lock: { type: 'string' },
  out: { type: 'string' },
  offline: { type: 'boolean', default: false },
  strict: { type: 'boolean', default: false },
  'confirm-removals': { type: 'boolean', default: false },
  'new-fleet': { type: 'boolean', default: false },
  kubeconfig: { type: 'string' },
  timeout: { type: 'string' },
  source: { type: 'string', multiple: true },
  report: { type: 'string' },
  wait: { type: 'string' },
  'max-stale': { type: 'string' },
  json: { type: 'boolean', default: false },
  output: { type: 'string' },
  quiet: { type: 'boolean', short: 'q', default: false },
  verbose: { type: 'boolean', short: 'v', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  version: { type: 'boolean', default: false },
} as const satisfies ParseArgsConfig['options'];

export const USAGE = `usage: mirrorc <synth|plan|check|observe> [options]
       mirrorc init [dir]
       mirrorc explain <cluster>/<namespace>/<service> [--json]
       mirrorc status [--output table|json]
       mirrorc <command> --help     that command's options;  mirrorc --version
       mirrorc access --kubeconfig-out <file> [--cluster <name>] [--duration 1h]   (see mirrorc access --help)

  synth    observe the fleet's clusters, update the lock, compile mirrors into <out>/<cluster>/
  plan     like synth, but only print what would be added, changed (with the fields) and removed
  check    like plan, but exit 5 when <out>/ or the lock differs from what synth would write (for CI)
  observe  observe and compile like synth, but write only the lock (then shard: synth --offline --source X)
  init     scaffold a fleet repository in [dir] (default: .): clusters/fleet.ts, an empty lock, cdk8s.yaml,
           package.json scripts, a CI workflow and a README; existing files are kept
  explain  why <cluster>/<namespace>/<service> is (not) mirrored, link by link: which selectors match or not
           (and which label fails), the mode, the check that skipped it, its readiness, its files in <out>/;
           also takes a mirror in a source (west/shop/web-east); offline, from the lock and the fleet file;
           exit 2 for a service the lock and <out>/ do not know (with the closest name, and why it may be missing)
  status   read-only, with the reader identity: per source the mirrors in the lock against the live ones
           (missing, unexpected, ports, ClusterIP pin or endpoints differing from <out>/), their ready
           endpoints and, with Flux, the Kustomizations' applied revision against the lock's commit; per
           target stale since, and its gateway probed from here (gateway.probe); what it cannot read is
           said (exit 10-15: the most urgent problem class, see docs/status.md)
  access   from an admin context, mint the read-only observer kubeconfig (short-lived tokens) for the fleet

options:
  --fleet <file>       fleet definition module (default: clusters/fleet.ts)
  --lock <file>        lock file (default: the fleet file with .lock.json)
  --out <dir>          output directory (default: dist)
  --offline            compile from the lock alone; contact no cluster
  --strict             fail, writing nothing, if any cluster cannot be observed or a target is held back
                       by the removal guard, or if one service's mirror cannot be compiled (long name,
                       name clash, pinned IP) instead of skipping it
  --confirm-removals   allow a large removal of mirrors (see docs/safety/removals.md), and accept targets that
                       suddenly list no exported services
  --new-fleet          start without a lock although <out>/ has content (otherwise an error)
  --source <cluster>   compile only this source cluster (repeatable, or comma-separated); needs --offline;
                       every other folder of <out>/ and the lock are left as they are
  --report <file>      write a JSON report of the run (clusters reached, stale since, changes, warnings);
                       - writes it to stdout (plan and check then print their changes on stderr)
  --max-stale <dur>    after writing, exit 9 if a cluster has been unobservable for longer than <dur>
                       (24h, 90m, 1d12h; off: ignore the fleet's StalenessLimit); not with --offline
  --wait <seconds>     synth/observe: wait this long for another run writing <out>/ (default: 60; 0: exit 6 at once)
  -q, --quiet          print only errors and warnings on stderr
  -v, --verbose        also print each changed field and timings on stderr
  --json               explain: print the explanation as JSON (reason codes as data)
  --output <format>    status: table (default) or json (a versioned document, statusFormat 1)
  --kubeconfig <file>  kubeconfig for clusters whose access names none
  --timeout <ms>       client-side timeout of one API request (default: 10000)
  -h, --help           show this help (after a command: that command's help)
  --version            print mirrorc's version

exit codes: 0 ok, 1 unexpected failure, 2 invalid input, 3 compile errors, 4 --strict and stale clusters,
            5 check found differences, 6 another run is writing <out>/ (see --wait),
            7 removal guard (confirm with --confirm-removals),
            8 <out>/, the lock or the report could not be written (disk full, read-only, permissions),
            9 a cluster stale for longer than --max-stale (the output was written),
            10 status: a mirror missing, unexpected or differing live, 11 status: a mirror with no ready endpoint,
            12 status: Flux behind the lock's commit or not Ready, 13 status: a cluster stale in the lock,
            14 status: a cluster or its GitOps objects not readable with the reader identity,
            15 status: a target's gateway failing its probe from here`;
