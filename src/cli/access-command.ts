/** `mirrorc access`: the command-line shell of {@link mintObserverAccess}. */
import { parseArgs } from 'node:util';
import { mintObserverAccess } from '../access/mint-observer-access.js';
import { parseDuration } from '../util/duration.js';
import { commandLineFailure } from './command-line-failure.js';
import { ExitCode } from '../errors/exit-codes.js';
import { buildFleet, importFleetDefinition } from '../load/load-fleet.js';
import { MirrorcError } from '../errors/mirrorc-error.js';
import { printErr, printOut } from '../util/print.js';

export const ACCESS_USAGE = `usage: mirrorc access --kubeconfig-out <file> [--cluster <name>]... [--duration <dur>] [--kubeconfig <admin>] [--fleet <file>]

  From an admin identity, applies each cluster's read-only observer identity (the reader RBAC that
  synth writes into dist/<cluster>/), mints a short-lived token for it (TokenRequest API) and writes a
  kubeconfig (mode 0600) with one context per cluster, named as the fleet's access expects. Entries
  of other clusters already in the file are kept (rotate one cluster at a time). Prints no secret.

  --kubeconfig-out <file>  the kubeconfig to write (keep it outside the repository)
  --cluster <name>         only this cluster (repeatable, or comma-separated; default: every linked cluster)
  --duration <dur>         token lifetime, e.g. 1h, 24h, 7d (default: 1h; at least 10m; the API server may cap it)
  --kubeconfig <file>      admin kubeconfig; each cluster's admin context is the fleet's access context
                           (default: the cluster's access.kubeconfig, else $KUBECONFIG, else ~/.kube/config)
  --fleet <file>           fleet definition module (default: clusters/fleet.ts)
  -h, --help               show this help

exit codes: 0 written, 2 invalid input (nothing written), 4 a cluster could not be reached or refused (nothing written)`;

/** Options of `mirrorc access`, for `parseArgs`. */
export const ACCESS_OPTIONS = {
  'kubeconfig-out': { type: 'string' },
  cluster: { type: 'string', multiple: true },
  duration: { type: 'string' },
  kubeconfig: { type: 'string' },
  fleet: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** Runs `mirrorc access` with `args` (the arguments after `access`). */
export async function runAccess(argv: readonly string[], args: readonly string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: [...args], options: ACCESS_OPTIONS, allowPositionals: false }));
  } catch (e) {
    return commandLineFailure(argv, ExitCode.INVALID_INPUT, (e as Error).message, ACCESS_USAGE);
  }
  if (values.help) {
    printOut(ACCESS_USAGE);
    return ExitCode.OK;
  }
  const outFile = values['kubeconfig-out'];
  if (!outFile) return commandLineFailure(argv, ExitCode.INVALID_INPUT, 'access needs --kubeconfig-out <file>: the kubeconfig to write (it holds tokens: keep it outside the repository)', ACCESS_USAGE);
  const durationText = values.duration ?? '1h';
  const durationMs = parseDuration(durationText);
  if (durationMs === undefined || durationMs < 600_000) {
    return commandLineFailure(argv, ExitCode.INVALID_INPUT, `--duration must be a duration of at least 10m, such as 1h or 24h, not "${durationText}"`);
  }
  const fleetFile = values.fleet ?? 'clusters/fleet.ts';
  try {
    const spec = buildFleet(await importFleetDefinition(fleetFile), fleetFile).fleet.toSpec();
    const clusters = (values.cluster ?? []).flatMap((c) => c.split(',')).map((c) => c.trim()).filter((c) => c !== '');
    const result = await mintObserverAccess({
      spec,
      clusters,
      ...(values.kubeconfig !== undefined ? { adminKubeconfig: values.kubeconfig } : {}),
      expirationSeconds: Math.floor(durationMs / 1000),
      outFile,
      onCluster: printErr,
    });
    printErr(`wrote ${result.outFile} (mode 0600): contexts ${result.clusters.map((c) => c.context).join(', ')}; use it with: mirrorc synth --kubeconfig ${result.outFile}`);
    return ExitCode.OK;
  } catch (e) {
    if (e instanceof MirrorcError) return commandLineFailure(argv, e.exitCode, e.message);
    throw e;
  }
}
