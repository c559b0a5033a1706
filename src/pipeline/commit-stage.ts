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
import type { Loaded } from './load-stage.js';
import type { Rendered } from './render-stage.js';
import type { RunContext } from './run-context.js';
import { emitDelivery } from './synth-delivery.js';

/** What a run shows of its changes besides the files: compile's plan rows, the large removals the guard found, and why mirrors go. */
export interface ChangeReview {
  readonly planRows: readonly string[];
  readonly removals: readonly LargeRemoval[];
  /** Why mirrors go and endpoints change. @default none known */
  readonly reasons?: ChangeReasons;
}

/** Commits (or shows) the rendered outputs; returns what was written, for the staleness limit's message. */
export function commitStage(run: RunContext, loaded: Loaded, rendered: Rendered, review: ChangeReview): string {
  const { options, mode, log, mark, host } = run;
  const { outDir, lockFile, deliveryDir } = loaded.paths;
  const { tree, delivery, lockText, changes, lockChanged, before } = rendered;
  const { removals, reasons } = review;
  if (mode === 'write') {
    // A streamed run staged dist/ as it rendered: the lock is staged last and the journal committed now.
    if (rendered.streamed) rendered.streamed.commit(lockText, loaded.lockText);
    else writeOutput(outDir, tree, { path: lockFile, text: lockText }, { before, host });
    mark('write');
    // The changed fields are shown with --verbose only: without it they are not worked out (each changed file parsed twice).
    // A lock-only change (what was observed changed, but compiles to the same files) is said as such, never as "no changes".
    if (changes.length === 0 && lockChanged) log.info(`${outDir}/ is up to date: no file changes; ${lockFile}: updated`);
    else logChanges({ files: log.info, fields: log.verbosity === 'verbose' ? log.detail : undefined, addedLimit: options.verbosity === 'verbose' ? Infinity : LISTED_ADDED_FILES }, { changes, outDir, before, after: tree, reasons: reasons?.byFile });
    if (delivery) emitDelivery(host, { mode: 'write', dir: deliveryDir, tree: delivery }, log.info);
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
  else logChanges({ files: print, fields: print }, { changes, outDir, before, after: tree, reasons: reasons?.byFile });
  if (lockChanged) print(`${lockFile}: would change`);
  if (mode === 'plan') for (const row of review.planRows) print(row);
  if (removals.length > 0) print(`synth would stop here: ${largeRemovalMessage(removals, (r) => reasons?.removalCauses(r.source, r.target) ?? []).replace('; nothing was written', '')}`);
  const deliveryChanged = delivery ? emitDelivery(host, { mode, dir: deliveryDir, tree: delivery }, print) : false;
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

/** Where the lines of {@link logChanges} go. */
interface ChangeLog {
  /** Each file added, changed or removed. */
  readonly files: (line: string) => void;
  /** Each changed field of a changed file. @default none: the fields are not worked out */
  readonly fields?: ((line: string) => void) | undefined;
  /** The added files listed per folder (the rest counted). @default every one */
  readonly addedLimit?: number;
}

/** What changed in the output folder `outDir`: per cluster folder the changes, the files before and after, and why files change. */
interface OutputChanges {
  readonly changes: readonly ClusterChanges[];
  readonly outDir: string;
  readonly before: FileTree;
  readonly after: FileTree;
  /** `<cluster>/<file>` → the reason of a removed mirror or changed endpoints. @default none known */
  readonly reasons?: ReadonlyMap<string, { reason: string; message: string }> | undefined;
}

/** Per source folder the files added, changed and removed, with the reason of a removed mirror or changed endpoints, and each changed field. */
function logChanges(log: ChangeLog, output: OutputChanges): void {
  const { files, fields, addedLimit = Infinity } = log;
  const { changes, outDir, before, after, reasons = new Map<string, { reason: string; message: string }>() } = output;
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
