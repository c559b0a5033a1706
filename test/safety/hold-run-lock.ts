/**
 * Test-only: takes the run lock of the output folder given as argument, prints `held <pid>`, and
 * holds it until stdin ends (or the process is killed). Lets a test make another run meet a held
 * lock deterministically, without racing sleeps.
 */
import { acquireRunLock } from '../../src/emit/run-lock.js';

const lock = await acquireRunLock(process.argv[2]!, { waitSeconds: 0, command: 'hold-run-lock (test)' });
process.stdout.write(`held ${process.pid}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  lock.release();
  process.exit(0);
});
