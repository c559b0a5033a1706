/** `mirrorc init [dir]`: the command-line shell of {@link initFleetRepo}. */
import { commandLineFailure } from './command-line-failure.js';
import { ExitCode } from '../errors/exit-codes.js';
import { initFleetRepo } from '../init/init-fleet-repo.js';
import { FLEET_FILE } from '../init/scaffold-files.js';
import { USAGE } from './options.js';
import { MirrorcError } from '../errors/mirrorc-error.js';
import { printOut } from '../util/print.js';

/** Scaffolds the folder `args[0]` (default `.`), printing what was created and kept and what to do next. */
export function runInit(argv: readonly string[], args: readonly string[]): number {
  if (args.length > 1) return commandLineFailure(argv, ExitCode.INVALID_INPUT, `init takes one folder, not "${args.join(' ')}"`, USAGE);
  const dir = args[0] ?? '.';
  let result;
  try {
    result = initFleetRepo(dir);
  } catch (e) {
    if (e instanceof MirrorcError) return commandLineFailure(argv, e.exitCode, e.message);
    throw e;
  }
  const out = printOut;
  for (const f of result.created) out(`created ${f}`);
  for (const f of result.kept) out(`kept    ${f} (exists)`);
  if (result.scriptsAdded.length > 0) out(`added npm scripts to package.json: ${result.scriptsAdded.join(', ')}`);
  out('');
  out('next:');
  if (dir !== '.') out(`  cd ${dir}`);
  if (result.created.includes('package.json')) out(`  npm install                            installs mirrorc ^${result.version} and its peers from your npm registry`);
  out(`  edit ${FLEET_FILE}: your clusters (kubeconfig contexts) and links`);
  out('  npm run synth -- --offline             compiles from the empty lock (each cluster\'s reader RBAC)');
  out('  npm run synth                          observes the clusters, then commit dist/ and the lock (and package-lock.json)');
  return ExitCode.OK;
}
