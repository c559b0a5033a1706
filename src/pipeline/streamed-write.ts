/**
 * synth's render and write, one source folder at a time: as compile renders a cluster's folder it
 * hands it here ({@link StreamedWrite.cluster}); the files it replaces are read from disk, compared,
 * and the new and changed ones staged into the write transaction at once (src/emit/write-transaction.ts),
 * so neither the old nor the new output is ever held whole. Staging is invisible: nothing in `dist/`
 * or the lock changes until {@link StreamedWrite.commit} writes the journal, after the removal guard
 * has decided; a run that stops before (refused, failed, killed) discards the staging, or the next
 * run does. What the later stages need of the texts is kept: the old and new text of every changed
 * or removed file (a mirror's file holds its Service, which the change reasons read; the plan's
 * changed fields) and every Namespace file (the delivery manifests).
 */
import { join } from 'node:path';
import { diffTrees, type ClusterChanges } from '../emit/diff-trees.js';
import type { FsHost } from '../emit/fs-host.js';
import { readTree } from '../emit/read-tree.js';
import { isNamespaceFile, type FileTree } from '../emit/render-files.js';
import { describeOutputs, StagedTransaction, type WriteSummary } from '../emit/write-transaction.js';
import type { UnitRecords } from '../state/lock-document.js';
import { readReplacedFiles } from '../state/unit-folders.js';
import { compareStrings } from '../util/order.js';

/**
 * A cluster folder compile rendered: its files (relative to it), the units it kept as they are
 * (skipped), and those of its files that are on disk with the very text rendered (a changed unit's
 * parts whose digest did not change): they are not read. @default `knownFiles` none
 */
export type RenderedClusterSink = (cluster: string, files: FileTree, keptUnits: readonly string[], knownFiles?: ReadonlySet<string>) => void;


/** The render-and-stage side of one synth run; see the module comment. */
export class StreamedWrite {
  private transaction: StagedTransaction;
  private readonly seen = new Set<string>();
  private readonly clusterChanges: ClusterChanges[] = [];
  /** The committed text of what the later stages look at (see the module comment). */
  readonly before: FileTree = new Map();
  /** The new text of the same files, and every Namespace file. */
  readonly after: FileTree = new Map();

  /**
   * @param outDir the output folder (`dist/`); an interrupted write of it must have been recovered first
   * @param lockFile the lock, committed with it
   * @param owned the clusters whose folders this run writes (a shard's); @default every cluster compile renders
   */
  constructor(private readonly outDir: string, private readonly lockFile: string, private readonly host: FsHost, private readonly owned?: ReadonlySet<string>) {
    this.transaction = this.newTransaction();
  }

  /** What compile calls with each rendered cluster folder: stages what differs from disk. */
  readonly cluster: RenderedClusterSink = (cluster, files, keptUnits, knownFiles) => {
    if (this.owned && !this.owned.has(cluster)) return;
    if (this.seen.has(cluster)) throw new Error(`internal error: cluster folder ${cluster} rendered twice`);
    this.seen.add(cluster);
    const kept = new Set(keptUnits.map((u) => `${cluster}/${u}`));
    const after: FileTree = new Map();
    for (const [rel, text] of files) after.set(`${cluster}/${rel}`, text);
    // A known file is on disk with its rendered text: its `before` is that text, unread.
    const known = knownFiles && knownFiles.size > 0 ? (path: string): string | undefined => (knownFiles.has(path.slice(cluster.length + 1)) ? after.get(path) : undefined) : undefined;
    const before = readReplacedFiles(this.outDir, { clusters: new Set([cluster]), keptUnits: kept, allTopLevel: false }, this.host, known);
    this.stage(before, after);
  };

  /** Drops what was staged and starts again (compile runs again, e.g. after holding back a target). */
  restart(): void {
    this.transaction.discard();
    this.transaction = this.newTransaction();
    this.seen.clear();
    this.clusterChanges.length = 0;
    this.before.clear();
    this.after.clear();
  }

  /**
   * Stages the removal of what no rendered cluster replaced: a written cluster compile did not render
   * (its folder's entries that are no kept unit) and, when `allTopLevel` (a full run owns the whole
   * folder; a shard does not), every top-level entry that is no written cluster.
   */
  finish(written: ReadonlySet<string>, units: UnitRecords, rendered: ReadonlySet<string>, allTopLevel: boolean): void {
    let top: string[];
    try {
      top = this.host.readdir(this.outDir);
    } catch {
      return;
    }
    const unseen = new Set([...written].filter((c) => !this.seen.has(c)));
    const kept = new Set<string>();
    for (const cluster of unseen) for (const unit of Object.keys(units[cluster] ?? {})) if (!rendered.has(`${cluster}/${unit}`)) kept.add(`${cluster}/${unit}`);
    const before = unseen.size > 0 ? readReplacedFiles(this.outDir, { clusters: unseen, keptUnits: kept, allTopLevel: false }, this.host) : new Map<string, string>();
    if (allTopLevel) {
      for (const entry of top.sort(compareStrings)) {
        if (written.has(entry)) continue;
        const abs = join(this.outDir, entry);
        if (this.host.stat(abs).isDirectory()) for (const [p, text] of readTree(abs, this.host)) before.set(`${entry}/${p}`, text);
        else before.set(entry, this.host.readFile(abs));
      }
    }
    if (before.size > 0) this.stage(before, new Map());
  }

  /** Per cluster folder, the files added, changed and removed (sorted by cluster). */
  get changes(): ClusterChanges[] {
    return [...this.clusterChanges].sort((a, b) => compareStrings(a.cluster, b.cluster));
  }

  /**
   * Commits what was staged with the lock `lockText` (nothing at all is touched when nothing differs).
   * @param committedLock the lock's text as the run read it under the run lock @default read again
   */
  commit(lockText: string, committedLock?: string): WriteSummary {
    return this.transaction.commit([{ path: this.lockFile, text: lockText, ...(committedLock !== undefined ? { current: committedLock } : {}) }]);
  }

  /** Drops the staging of a run that does not commit; false when that failed (the next run removes it). */
  discard(): boolean {
    return this.transaction.discard();
  }

  private newTransaction(): StagedTransaction {
    return new StagedTransaction(this.outDir, this.host, describeOutputs([this.outDir], [this.lockFile]));
  }

  private stage(before: FileTree, after: FileTree): void {
    const changes = diffTrees(before, after);
    for (const c of changes) {
      this.clusterChanges.push(c);
      const prefix = c.cluster === '' ? '' : `${c.cluster}/`;
      for (const rel of [...c.changed, ...c.removed]) this.keep(`${prefix}${rel}`, before, after);
    }
    for (const [path, text] of after) if (isNamespaceFile(path)) this.after.set(path, text);
    this.transaction.stage({ dir: this.outDir, before, after });
  }

  /** Keeps the texts of `key` (a mirror's file holds its Service, where the change reasons read its origin). */
  private keep(key: string, before: FileTree, after: FileTree): void {
    const b = before.get(key);
    if (b !== undefined) this.before.set(key, b);
    const a = after.get(key);
    if (a !== undefined) this.after.set(key, a);
  }
}
