/**
 * Stage 6, commit: `synth` writes the rendered outputs (only what differs, through a committed
 * journal: src/emit/write-output.ts), `observe` writes the lock alone, `plan` and `check` print what
 * would change and write nothing.
 * @throws WriteFailedError (exit 8) when the file system refuses; CheckFailedError (exit 5) for a check that finds a difference
 */
import { join } from 'node:path';
import { changedFileFields, type ClusterChanges } from '../emit/diff-trees.js';
import type { FileTree } from '../emit/render-files.js';
import { writeLockOnly, writeOutput } from '../emit/write-output.js';
import { CheckFailedError } from '../errors/mirrorc-error.js';
import { largeRemovalMessage, type LargeRemoval } from '../guard/removal-guard.js';
import { outputText, printOut } from '../util/print.js';
import type { ChangeReasons } from '../explain/change-reasons.js';
import type { Compiled } from './compile-stage.js';
import type { Loaded } from './load-stage.js';
import type { Rendered } from './render-stage.js';
import type { RunContext } from './run-context.js';
import { emitDelivery } from './synth-delivery.js';

/** Commits (or shows) the rendered outputs; returns what was written, for the staleness limit's message. */
export function commitStage(run: RunContext, loaded: Loaded, compiled: Compiled, rendered: Rendered, before: FileTree, removals: readonly LargeRemoval[], reasons?: ChangeReasons): string {
  const { options, mode, log, mark, host } = run;
  const { outDir, lockFile, deliveryDir } = loaded.paths;
  const { tree, delivery, lockText, changes, lockChanged } = rendered;
  if (mode === 'write') {
    // A streamed run staged dist/ as it rendered: the lock is staged last and the journal committed now.
    if (rendered.streamed) rendered.streamed.commit(lockText, loaded.lockText);
    else writeOutput(outDir, tree, lockFile, lockText, before, host);
    mark('write');
    // The changed fields are shown with --verbose only: without it they are not worked out (each changed file parsed twice).
    // A lock-only change (what was observed changed, but compiles to the same files) is said as such, never as "no changes".
    if (changes.length === 0 && lockChanged) log.info(`${outDir}/ is up to date: no file changes; ${lockFile}: updated`);
    else logChanges(log.info, log.verbosity === 'verbose' ? log.detail : undefined, changes, outDir, before, tree, reasons?.byFile, options.verbosity === 'verbose' ? Infinity : LISTED_ADDED_FILES);
    if (delivery) emitDelivery(host, 'write', deliveryDir, delivery, log.info);
    return `${outDir}/ and the lock were written (stale clusters keep their last known state)`;
  }
  if (mode === 'observe') {
    writeLockOnly(outDir, lockFile, lockText, host);
    log.info(`${lockFile}: ${lockChanged ? 'updated' : 'unchanged'}; ${outDir}/ left as it is (compile it with: synth --offline [--source <cluster>])`);
    return 'the lock was written (stale clusters keep their last known state)';
  }
  // Plan or check: compare with what is on disk, write nothing.
  const printSink = options.print ?? printOut;
  // The plan shows changed fields, which may hold a target's annotation values: redacted and made printable like every log line.
  const print = (line: string): void => printSink(outputText(line));
  if (changes.length === 0 && lockChanged) print(`${outDir}/ is up to date: no file changes`);
  else logChanges(print, print, changes, outDir, before, tree, reasons?.byFile);
  if (lockChanged) print(`${lockFile}: would change`);
  if (mode === 'plan') for (const row of compiled.planRows) print(row);
  if (removals.length > 0) print(`synth would stop here: ${largeRemovalMessage(removals, (r) => reasons?.removalCauses(r.source, r.target) ?? []).replace('; nothing was written', '')}`);
  const deliveryChanged = delivery ? emitDelivery(host, mode, deliveryDir, delivery, print) : false;
  if (mode === 'check' && (changes.length > 0 || lockChanged || deliveryChanged)) {
    throw new CheckFailedError(`${outDir}/ or ${lockFile} differs from what synth would write; run synth and commit the result`);
  }
  return 'nothing was written';
}

/**
 * The added files synth lists per folder; the others are counted on one line (`--verbose` lists every
 * one). A cold run of a large fleet adds hundreds of thousands of files (175,302 at 20×500): listing
 * each made a 30 MB log and seconds of the run. Changed and removed files are always listed: they
 * are what a reviewer reads.
 */
export const LISTED_ADDED_FILES = 100;

/**
 * Per source folder the files added, changed and removed (`files`), with the reason of a removed mirror or changed endpoints, and each changed field (`fields`; none worked out when undefined).
 * @param addedLimit the added files listed per folder (the rest counted) @default every one
 */
function logChanges(files: (line: string) => void, fields: ((line: string) => void) | undefined, changes: readonly ClusterChanges[], outDir: string, before: FileTree, after: FileTree, reasons: ReadonlyMap<string, { reason: string; message: string }> = new Map(), addedLimit = Infinity): void {
  const why = (cluster: string, f: string): string => {
    const r = reasons.get(`${cluster}/${f}`);
    return r ? `  (${r.message}) [${r.reason}]` : '';
  };
  if (changes.length === 0) {
    files(`${outDir}/ is up to date: no changes`);
    return;
  }
  for (const c of changes) {
    files(`${join(outDir, c.cluster)}/: ${c.added.length} added, ${c.changed.length} changed, ${c.removed.length} removed`);
    for (const f of c.added.length > addedLimit ? c.added.slice(0, addedLimit) : c.added) files(`  + ${f}`);
    if (c.added.length > addedLimit) files(`  … and ${c.added.length - addedLimit} more added (--verbose lists every file)`);
    for (const f of c.changed) {
      files(`  ~ ${f}${why(c.cluster, f)}`);
      if (!fields) continue;
      const key = `${c.cluster}/${f}`;
      const changed = changedFileFields(before.get(key) ?? '', after.get(key) ?? '');
      for (const field of changed.length > 0 ? changed : ['(text only: comments or formatting)']) fields(`      ${field}`);
    }
    for (const f of c.removed) files(`  - ${f}${why(c.cluster, f)}`);
  }
}
