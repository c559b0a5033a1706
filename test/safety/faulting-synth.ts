/**
 * Test-only: the mirrorc command line with a faulting file-system host
 * (test/fixtures/faulting-host.ts). `faulting-synth.ts <fault> <mirrorc arguments...>`, e.g.
 * `crash:journal-commit synth --offline`: the process kills itself (SIGKILL) right before that
 * step, or the step fails once with an errno. A crash needs a process of its own; nothing but this
 * script can inject a fault (there is no environment variable for it).
 */
import { runCliAndExit } from '../../src/cli/run-cli.js';
import { faultingHost } from '../fixtures/faulting-host.js';

const [fault, ...args] = process.argv.slice(2);
if (!fault) {
  process.stderr.write('usage: faulting-synth.ts <crash:<step|n>|errno:<CODE>:<step|n>> <mirrorc arguments...>\n');
  process.exit(2);
}
runCliAndExit(args, { host: faultingHost(fault) });
