/**
 * Crash-safe, incremental writes of output folders and files (a write-ahead transaction).
 *
 * Only new and changed files are staged, in `.<home>.txn/` beside the home folder (e.g. `.dist.txn/`
 * beside `dist/`), and fsynced. Then the journal (every file to put, every file to delete, the lock
 * included) is written and renamed into place: that rename is the commit point. Then it is applied:
 * staged object files renamed into place, then every `kustomization.yaml`, then removed files
 * deleted (kustomizations first), emptied folders removed, then the lock; the touched folders are
 * fsynced and the journal is removed. So every state on disk is prune-safe: a kustomization.yaml
 * only ever lists files that exist.
 *
 * Recovery (next writer, under the run lock): a committed journal is rolled forward (idempotent);
 * an uncommitted transaction is discarded. Readers that must not write (plan, check) read the
 * committed state: the folder overlaid with a committed journal.
 */
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { compareStrings } from '../util/order.js';
import { NODE_FS_HOST } from './durable-fs.js';
import type { FsHost, WriteStep } from './fs-host.js';
import type { FileTree } from './render-files.js';
import { isFsError, shownPath, WriteFailedError } from './write-failure.js';
import { readTree } from './read-tree.js';
import { appendAll } from '../util/append-all.js';
import { KUSTOMIZATION_FILE } from './output-names.js';
import { journalProblems, outsideListProblems, STAGED_BESIDE_SUFFIX, transactionFolderProblem, UnsafeJournalError, type JournalScope } from './journal-paths.js';

/** One output folder to be replaced by `after` (`before` is what it holds now, as read by {@link readTree}). */
export interface TreeWrite {
  readonly dir: string;
  readonly before: FileTree;
  readonly after: FileTree;
}

/** One file to be replaced by `text` (the lock), written last. */
export interface FileWrite {
  readonly path: string;
  readonly text: string;
  /**
   * What the file holds now, when the caller read it already under the run lock (synth's load stage
   * reads the 33 MiB lock of a large fleet once). @default - read here; a missing file counts as different
   */
  readonly current?: string;
}

/** What a transaction wrote. */
export interface WriteSummary {
  /** Files put (added or changed) and deleted; 0 and 0 when nothing differed (then nothing was touched). */
  readonly put: number;
  readonly deleted: number;
}

/** One operation of the journal; paths are relative to the home folder's parent. */
interface JournalOp {
  /** put: a file; put-dir: a new folder staged whole (renamed into place as one); delete: a file; rmdir: an emptied folder. */
  readonly op: 'put' | 'put-dir' | 'delete' | 'rmdir';
  readonly path: string;
  /** put, put-dir: where the new content is staged. */
  readonly staged?: string;
  /** The step name applying it. */
  readonly step: WriteStep;
}

interface Journal {
  readonly format: 1;
  readonly ops: readonly JournalOp[];
}

const JOURNAL = 'journal.json';
const JOURNAL_TMP = 'journal.json.tmp';
/** Lists files staged outside the transaction folder (another file system), written before them. */
const OUTSIDE = 'outside.json';
/**
 * Staged files per folder of `.<home>.txn/files/`: one folder of 540,000 files made staging
 * superlinear on ext4 (measured: 200,000 files took 46 s in one folder, 15 s in folders of 1,024).
 */
const STAGED_PER_FOLDER = 1000;

/** The transaction folder of the output folder `home`: `.<name>.txn` beside it. */
export function transactionDir(home: string): string {
  return join(dirname(resolve(home)), `.${basename(resolve(home))}.txn`);
}

/**
 * Makes `trees` and `files` what is on disk, writing only what differs, through a committed
 * journal. A leftover transaction of `home` must have been recovered first ({@link recoverTransaction}).
 * Throws {@link WriteFailedError} when the file system refuses.
 */
export function commitChanges(home: string, trees: readonly TreeWrite[], files: readonly FileWrite[], host: FsHost = NODE_FS_HOST): WriteSummary {
  const transaction = new StagedTransaction(home, host, describeOutputs(trees.map((t) => t.dir), files.map((f) => f.path)));
  for (const t of trees) transaction.stage(t);
  return transaction.commit(files);
}

/** One put of the journal before it is written: where the file goes and which step applies it. */
interface PendingPut {
  readonly op: 'put' | 'put-dir';
  readonly path: string;
  readonly staged: string;
  readonly step: WriteStep;
}

/**
 * A write transaction staged one part at a time (a source folder, then the next), so a caller never
 * holds the whole new output: {@link stage} writes the new and changed files of one tree into the
 * transaction folder at once (nothing visible changes), {@link commit} stages the single files (the
 * lock), flushes, writes and renames the journal (the commit point) and applies it; {@link discard}
 * drops everything staged (a run refused before its commit point). A unit folder that does not
 * exist yet is staged whole and renamed into place as one folder (with its own kustomization.yaml
 * inside: it appears complete), before any kustomization.yaml is put: prune-safe as a file-by-file put.
 * A leftover transaction of `home` must have been recovered first ({@link recoverTransaction}).
 */
export class StagedTransaction {
  private readonly base: string;
  private readonly txn: string;
  private readonly puts: PendingPut[] = [];
  /** Deletes of kustomization.yaml files (applied first among deletes), then of other files, then emptied folders. */
  private readonly deleteKustomizations: string[] = [];
  private readonly deleteFiles: string[] = [];
  private readonly rmdirs: string[] = [];
  /** Every file written into the transaction (flushed at the commit). */
  private readonly stagedFiles: string[] = [];
  private readonly stagedDirs = new Set<string>();
  private readonly outside: string[] = [];
  private readonly outsideListed = new Set<string>();
  private readonly devices = new Map<string, number>();
  /** Per folder: whether a rename from beside the home folder (the transaction's mount) reaches it. */
  private readonly reachable = new Map<string, boolean>();
  /** Folders of the output made before the commit point to stage beside a target in them (another mount), in order. */
  private readonly madeFolders: string[] = [];
  private begun = false;
  private finished = false;
  private fileCount = 0;
  private folderCount = 0;
  /** Files put, a staged folder counting each file in it. */
  private putCount = 0;

  /**
   * @param home the output folder (`dist/`) whose transaction folder this is
   * @param what the outputs as a message names them ("dist/ and clusters/fleet.lock.json")
   */
  constructor(private readonly home: string, private readonly host: FsHost = NODE_FS_HOST, private readonly what = `${shownPath(resolve(home))}/`) {
    this.base = dirname(resolve(home));
    this.txn = transactionDir(home);
  }

  /**
   * Stages what differs between `t.before` and `t.after` (the folder `t.dir`; paths of other stage
   * calls must not overlap): new and changed files are written into the transaction folder now; removed
   * files and emptied folders are noted for the journal.
   * @throws WriteFailedError (nothing changed, the staging discarded) when the file system refuses or a path is blocked
   */
  stage(t: TreeWrite): void {
    if (this.finished) throw new Error('internal error: staging into a finished transaction');
    const { host } = this;
    const root = resolve(t.dir);
    const changed: string[] = [];
    for (const [p, text] of t.after) if (t.before.get(p) !== text) changed.push(p);
    changed.sort(compareStrings);
    const removed = [...t.before.keys()].filter((p) => !t.after.has(p)).sort(compareStrings);
    appendAll(this.deleteKustomizations, removed.filter((p) => basename(p) === KUSTOMIZATION_FILE).map((p) => join(root, p)));
    appendAll(this.deleteFiles, removed.filter((p) => basename(p) !== KUSTOMIZATION_FILE).map((p) => join(root, p)));
    appendAll(this.rmdirs, emptiedFolders(t.before, t.after).map((d) => join(root, d)));
    if (changed.length === 0) return;
    try {
      const folders = this.newFolders(root, changed, t.before);
      const single = changed.filter((p) => !folders.has(folderOf(p) ?? ''));
      // Only paths about to be written can be blocked (unchanged files are on disk already).
      checkTreeShape(host, root, new Map(single.map((p) => [p, ''])), [...folders.keys()]);
      // What goes to another mount is staged beside its target, listed first (one list write per tree).
      this.noteOutside([...[...folders.keys()].map((f) => join(root, f)), ...single.map((p) => join(root, p))].filter((abs) => !this.reaches(dirname(abs))));
      for (const [folder, paths] of folders) this.stageFolder(root, folder, paths, t.after);
      for (const p of single.filter((q) => basename(q) !== KUSTOMIZATION_FILE)) this.stageFile(join(root, p), t.after.get(p)!, 'apply-object');
      for (const p of single.filter((q) => basename(q) === KUSTOMIZATION_FILE)) this.stageFile(join(root, p), t.after.get(p)!, 'apply-kustomization');
    } catch (e) {
      throw this.failedBeforeCommit(e);
    }
  }

  /**
   * Stages `files` (the lock: written last), then commits and applies the transaction. Nothing is
   * touched when nothing differs.
   * @throws WriteFailedError when the file system refuses: before the commit point nothing changed (the staging is discarded); after it, the next run completes it
   */
  commit(files: readonly FileWrite[]): WriteSummary {
    const { host, txn } = this;
    // The lock may be staged beside itself (another file system): a discard must know it.
    this.lockPath = files[0]?.path;
    try {
      for (const f of files) {
        checkNotBlocked(host, resolve(f.path), false);
        let current = f.current;
        if (current === undefined) {
          try {
            current = host.readFile(f.path);
          } catch {
            current = undefined;
          }
        }
        if (current !== f.text) this.stageFile(resolve(f.path), f.text, 'apply-lock');
      }
    } catch (e) {
      throw this.failedBeforeCommit(e);
    }
    const deletes = this.deleteKustomizations.length + this.deleteFiles.length;
    if (this.puts.length === 0 && deletes === 0) {
      this.finished = true;
      return { put: 0, deleted: 0 };
    }
    const rel = (abs: string): string => relative(this.base, abs);
    const ops: JournalOp[] = [];
    try {
      this.begin();
      this.current = '';
      const syncedDevices = host.flush('stage-sync', this.stagedFiles);
      for (const p of this.puts) ops.push({ op: p.op, path: rel(p.path), staged: rel(p.staged), step: p.step });
      for (const d of this.deleteKustomizations) ops.push({ op: 'delete', path: rel(d), step: 'apply-delete' });
      for (const d of this.deleteFiles) ops.push({ op: 'delete', path: rel(d), step: 'apply-delete' });
      for (const d of this.rmdirs) ops.push({ op: 'rmdir', path: rel(d), step: 'apply-rmdir' });
      // Object files and new unit folders, kustomizations, deletes, emptied folders, the lock last (after the tree it describes is complete).
      ops.sort((a, b) => rank(a) - rank(b));
      // syncfs made the entries of every folder on its file system durable; others get their fsync.
      for (const d of this.stagedDirs) if (!syncedDevices.has(this.deviceOfFolder(d))) host.fsyncDirectory(d);
      this.current = join(txn, JOURNAL);
      const journal: Journal = { format: 1, ops };
      host.writeFile('journal-write', join(txn, JOURNAL_TMP), journalText(journal), true);
      host.rename('journal-commit', join(txn, JOURNAL_TMP), join(txn, JOURNAL));
      host.fsyncDirectory(txn);
    } catch (e) {
      throw this.failedBeforeCommit(e);
    }
    this.finished = true;
    const { what } = this;
    // Apply: from here on the new output is committed; a failure is completed by the next run.
    try {
      applyJournal(host, this.base, txn, { format: 1, ops });
    } catch (e) {
      if (!isFsError(e)) throw e;
      throw new WriteFailedError(errorPath(e, ''), e.code, `the new ${what} ${what.includes(' and ') ? 'are' : 'is'} committed (journal in ${shownPath(txn)}/) but not all in place yet; plan already reads the new output (check fails until it is in place), and the next synth completes it once the cause is fixed`);
    }
    return { put: this.putCount, deleted: deletes };
  }

  /** Drops everything staged (a run refused or failed before its commit point); false when that failed (the next run discards it). */
  discard(): boolean {
    if (this.finished) return true;
    this.finished = true;
    return !this.begun || this.discardAll();
  }

  /** Removes the transaction (with what it staged beside targets) and the output folders it made for them. */
  private discardAll(): boolean {
    const removed = tryDiscard(this.host, this.home, this.lockPath);
    try {
      for (const d of [...this.madeFolders].reverse()) this.host.rmdir('discard', d);
    } catch {
      // left empty: the next run uses it or leaves it (git and kustomize do not see an empty folder)
    }
    return removed;
  }

  /**
   * The output path a staged file goes to (`staged`: a file the host wrote in the background and
   * reported failed at the flush), or '' when it is none.
   */
  private outputOf(staged: string | undefined): string {
    if (staged === undefined) return '';
    for (const p of this.puts) {
      if (p.staged === staged) return p.path;
      if (p.op === 'put-dir' && staged.startsWith(p.staged + sep)) return join(p.path, staged.slice(p.staged.length + 1));
    }
    return '';
  }

  /** The output path being staged when a failure happens (for its message). */
  private current = '';
  /** The single file staged by {@link commit} (the lock), once known. */
  private lockPath: string | undefined;

  /** Creates the transaction folder (once). */
  private begin(): void {
    if (this.begun) return;
    const { host, txn } = this;
    // Never touch an earlier run's transaction here: it may be committed (the caller recovers it first).
    if (host.exists(txn)) throw new Error(`internal error: ${txn} exists; it must be recovered before a new write`);
    this.begun = true;
    host.mkdir('txn-begin', join(txn, 'files'));
    for (const d of [join(txn, 'files'), txn, this.base]) this.stagedDirs.add(d);
  }

  private deviceOfFolder(dir: string): number {
    let dev = this.devices.get(dir);
    if (dev === undefined) this.devices.set(dir, (dev = deviceOf(this.host, dir)));
    return dev;
  }

  /**
   * Makes the staging folder `dir` (and its parents up to `root`: the transaction folder, or the
   * output folder for a staging beside the target) unless made already; each is flushed at the commit.
   */
  private stagingFolder(dir: string, root = this.txn): void {
    if (this.stagedDirs.has(dir)) return;
    if (!this.host.exists(dir)) this.host.mkdir('txn-begin', dir);
    for (let d = dir; !this.stagedDirs.has(d) && d.startsWith(root + sep); d = dirname(d)) this.stagedDirs.add(d);
  }

  /**
   * Whether a rename from the transaction folder reaches the folder `dir` (decided by trying, once
   * per existing folder: a folder yet to be made is on its nearest existing parent's mount). False on
   * another file system, and on another mount of the same one (a bind mount: same `st_dev`, EXDEV).
   */
  private reaches(dir: string): boolean {
    const asked = resolve(dir);
    let answer = this.reachable.get(asked);
    if (answer !== undefined) return answer;
    let existing = asked;
    while (dirname(existing) !== existing && !this.host.exists(existing)) existing = dirname(existing);
    answer = this.reachable.get(existing) ?? this.host.renameReaches(this.base, existing);
    this.reachable.set(existing, answer);
    // A folder made later is on the mount of its nearest existing parent now: the same answer.
    this.reachable.set(asked, answer);
    return answer;
  }

  /**
   * Lists `targets` (files and new unit folders on another mount, staged beside themselves) in
   * `outside.json` before anything is staged beside them, so that a discard always finds them.
   */
  private noteOutside(targets: readonly string[]): void {
    if (targets.length === 0) return;
    this.begin();
    for (const t of targets) {
      const rel = relative(this.base, besidePath(t));
      if (this.outsideListed.has(rel)) continue;
      this.outsideListed.add(rel);
      this.outside.push(rel);
    }
    this.host.writeFile('txn-begin', join(this.txn, OUTSIDE), JSON.stringify(this.outside), true);
  }

  /**
   * Makes the folder `dir` of the output (and its missing parents) before the commit point, to stage
   * a file or folder beside its target there (another mount); empty folders, invisible to git and
   * kustomize. A discard removes them again.
   */
  private outputFolder(dir: string): void {
    if (this.host.exists(dir)) return;
    const missing: string[] = [];
    for (let d = dir; !this.host.exists(d) && dirname(d) !== d; d = dirname(d)) missing.unshift(d);
    this.host.mkdir('txn-begin', dir);
    appendAll(this.madeFolders, missing);
    for (const d of [...missing, dirname(missing[0] ?? dir)]) this.stagedDirs.add(d);
  }

  /** Stages one file that goes to `path`: in the transaction folder, or beside its target on another mount. */
  private stageFile(path: string, text: string, step: WriteStep): void {
    this.begin();
    const { host, txn } = this;
    this.current = path;
    const i = this.fileCount++;
    const inside = this.reaches(dirname(path));
    const staged = inside ? join(txn, 'files', String(Math.floor(i / STAGED_PER_FOLDER)), String(i)) : besidePath(path);
    if (!inside) {
      if (!this.outsideListed.has(relative(this.base, staged))) this.noteOutside([path]);
      this.outputFolder(dirname(path));
      this.stagedDirs.add(dirname(path));
    } else this.stagingFolder(dirname(staged));
    host.writeFile('stage-file', staged, text, false);
    this.stagedFiles.push(staged);
    this.puts.push({ op: 'put', path, staged, step });
    this.putCount++;
  }

  /** Stages the new unit folder `folder` (relative to `root`) whole: its files `paths` of `after`, renamed into place as one folder. */
  private stageFolder(root: string, folder: string, paths: readonly string[], after: ReadonlyMap<string, string>): void {
    this.begin();
    const { host, txn } = this;
    const target = join(root, folder);
    // On another mount than the transaction, the folder is staged beside itself (listed in outside.json by stage()).
    const inside = this.reaches(dirname(target));
    const staged = inside ? join(txn, 'folders', String(this.folderCount++)) : besidePath(target);
    if (!inside) {
      this.current = target;
      this.outputFolder(dirname(target));
      this.stagedDirs.add(dirname(target));
    }
    for (const p of paths) {
      const rest = p.slice(folder.length + 1);
      const at = join(staged, rest);
      this.current = join(root, p);
      this.stagingFolder(dirname(at), inside ? txn : dirname(target));
      host.writeFile('stage-file', at, after.get(p)!, false);
      this.stagedFiles.push(at);
    }
    this.puts.push({ op: 'put-dir', path: join(root, folder), staged, step: 'apply-folder' });
    this.putCount += paths.length;
  }

  /**
   * The unit folders (`<a>/<b>`, relative to `root`) that can be staged whole: every file of theirs
   * is new (nothing of them in `before`) and nothing is at their path on disk. Their files, by folder.
   */
  private newFolders(root: string, changed: readonly string[], before: ReadonlyMap<string, string>): Map<string, string[]> {
    const byFolder = new Map<string, string[]>();
    for (const p of changed) {
      const folder = folderOf(p);
      if (folder === undefined) continue;
      let list = byFolder.get(folder);
      if (!list) byFolder.set(folder, (list = []));
      list.push(p);
    }
    if (byFolder.size === 0) return byFolder;
    const touched = new Set<string>();
    for (const p of before.keys()) {
      const folder = folderOf(p);
      if (folder !== undefined) touched.add(folder);
      touched.add(p);
    }
    for (const folder of [...byFolder.keys()]) {
      if (touched.has(folder) || this.host.lstat(join(root, folder)) !== undefined) byFolder.delete(folder);
    }
    return byFolder;
  }

  /** The error to throw for a failure before the commit point: a file-system failure discards the staging and says nothing changed. */
  private failedBeforeCommit(e: unknown): unknown {
    this.finished = true;
    if (!isFsError(e)) {
      if (this.begun) this.discardAll();
      return e;
    }
    const { what, txn } = this;
    const cleaned = !this.begun || this.discardAll();
    return new WriteFailedError(errorPath(e, this.current !== '' ? this.current : this.outputOf(e.path)), e.code, `nothing was changed: ${what} ${what.includes(' and ') ? 'are' : 'is'} as before${cleaned ? '' : ` (the unfinished ${shownPath(txn)}/ is removed by the next synth)`}; fix the cause and run synth again`);
  }
}

/** The unit folder (`<a>/<b>`) of a path at least three segments deep, else undefined. */
function folderOf(p: string): string | undefined {
  const first = p.indexOf('/');
  const second = first < 0 ? -1 : p.indexOf('/', first + 1);
  return second < 0 ? undefined : p.slice(0, second);
}

/** The journal's text: one operation a line (JSON), so a large journal is written without one huge pretty-printed value. */
function journalText(journal: Journal): string {
  return `{"format":${journal.format},"ops":[\n${journal.ops.map((o) => JSON.stringify(o)).join(',\n')}\n]}\n`;
}

/** Order of the journal: object files, kustomizations, deletes (kustomizations first), emptied folders, then the lock. */
function rank(op: JournalOp): number {
  return op.step === 'apply-folder' ? 0 : ['apply-object', 'apply-kustomization', 'apply-delete', 'apply-rmdir', 'apply-lock'].indexOf(op.step);
}

/**
 * Finishes or undoes a transaction left by an earlier run of `home`: a committed journal is rolled
 * forward, an uncommitted transaction is discarded. Call it only while holding the run lock.
 */
export function recoverTransaction(home: string, lockPath?: string, host: FsHost = NODE_FS_HOST): 'none' | 'rolled-forward' | 'discarded' {
  const txn = transactionDir(home);
  if (!host.exists(txn)) return 'none';
  const scope: JournalScope = { home, txn, ...(lockPath !== undefined ? { lockPath } : {}) };
  const journal = readJournal(host, scope, true);
  if (!journal) {
    discard(host, scope);
    return 'discarded';
  }
  applyJournal(host, dirname(resolve(home)), txn, journal);
  return 'rolled-forward';
}

/**
 * Checks, without changing anything, that a transaction left for `home` names only paths inside
 * `home`, its transaction folder and `lockPath`.
 * @throws UnsafeJournalError when it does not
 */
export function checkTransaction(home: string, lockPath?: string, host: FsHost = NODE_FS_HOST): void {
  const txn = transactionDir(home);
  if (!host.exists(txn) && host.lstat(txn) === undefined) return;
  const scope: JournalScope = { home, txn, ...(lockPath !== undefined ? { lockPath } : {}) };
  if (readJournal(host, scope, true)) return;
  let outside: unknown = [];
  try {
    outside = JSON.parse(host.readFile(join(txn, OUTSIDE)));
  } catch {
    outside = [];
  }
  const problems = outsideListProblems(host, scope, outside);
  if (problems.length > 0) throw new UnsafeJournalError(txn, problems);
}

/** Applies every operation (idempotent: a put whose staged file is gone was done already), then removes the transaction. */
function applyJournal(host: FsHost, base: string, txn: string, journal: Journal): void {
  const touched = new Set<string>();
  const folders = new Set<string>();
  for (const op of journal.ops) {
    const target = resolve(base, op.path);
    if (op.op === 'put' || op.op === 'put-dir') {
      const staged = resolve(base, op.staged!);
      if (!host.exists(staged)) continue;
      if (!folders.has(dirname(target)) && !host.exists(dirname(target))) {
        host.mkdir('apply-mkdir', dirname(target));
        for (let d = dirname(target); d !== base && d.startsWith(base + sep); d = dirname(d)) touched.add(dirname(d));
      }
      // A staged folder goes into place as one rename: it appears with all its files, its kustomization.yaml included.
      moveIntoPlace(host, op, staged, target);
      touched.add(dirname(target));
      folders.add(dirname(target));
    } else if (op.op === 'delete') {
      if (!host.exists(target)) continue;
      host.unlink('apply-delete', target);
      touched.add(dirname(target));
    } else {
      if (!host.exists(target)) continue;
      host.rmdir('apply-rmdir', target);
      touched.add(dirname(target));
    }
  }
  // Every rename and delete is on disk before the journal that describes them goes.
  for (const d of [...touched].sort(compareStrings)) host.fsyncDirectory(d);
  host.unlink('txn-cleanup', join(txn, JOURNAL));
  host.fsyncDirectory(txn);
  host.removeTree('txn-cleanup', txn);
  host.fsyncDirectory(base);
}

/** Where a file or folder staged for `target` lies beside it (another mount than the transaction): `.<name>.mirrorc-staged`. */
function besidePath(target: string): string {
  return join(dirname(target), `.${basename(target)}${STAGED_BESIDE_SUFFIX}`);
}

/**
 * Renames the staged file or folder `staged` to `target`. Where that cannot be done by one rename
 * (EXDEV: another mount, which staging found by trying, or a transaction an earlier version staged),
 * it is copied beside the target first (durably; the copy replaces a partial one of a killed run),
 * renamed into place within its folder, and the staged one removed: the roll-forward never depends
 * on a rename across mounts. A staged folder whose target is there already was put by such a copy
 * before a kill (a new unit folder is absent when staged, and only the run-lock holder writes).
 */
function moveIntoPlace(host: FsHost, op: JournalOp, staged: string, target: string): void {
  if (op.op === 'put-dir' && host.lstat(target) !== undefined && dirname(staged) !== dirname(target)) {
    host.removeTree(op.step, staged);
    return;
  }
  try {
    host.rename(op.step, staged, target);
    return;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
  }
  const copy = besidePath(target);
  host.removeTree(op.step, copy);
  host.copyTree(op.step, staged, copy);
  host.rename(op.step, copy, target);
  host.removeTree(op.step, staged);
}

/** Removes an uncommitted transaction of `home`, with the files it staged outside its folder (each checked first: see journal-paths.ts). */
function discard(host: FsHost, scope: JournalScope): void {
  const { home, txn } = scope;
  const base = dirname(resolve(home));
  let outside: unknown = [];
  try {
    outside = JSON.parse(host.readFile(join(txn, OUTSIDE)));
  } catch {
    outside = [];
  }
  const folderProblem = transactionFolderProblem(host, txn);
  const problems = [...(folderProblem !== undefined ? [folderProblem] : []), ...outsideListProblems(host, scope, outside)];
  if (problems.length > 0) throw new UnsafeJournalError(txn, problems);
  // A file, or a new unit folder, staged beside its target.
  for (const p of outside as string[]) host.removeTree('discard', resolve(base, p));
  host.removeTree('discard', txn);
  host.fsyncDirectory(base);
}

/** {@link discard}, reporting instead of throwing whether it worked (the caller is already failing); `lockPath`: the lock this transaction may have staged beside itself. */
function tryDiscard(host: FsHost, home: string, lockPath: string | undefined): boolean {
  try {
    if (host.exists(transactionDir(home))) discard(host, { home, txn: transactionDir(home), ...(lockPath !== undefined ? { lockPath } : {}) });
    return true;
  } catch {
    return false;
  }
}

/**
 * The committed journal of a transaction folder, or undefined when there is none (not committed).
 * Throws {@link UnsafeJournalError} when it names a path outside its scope (see journal-paths.ts).
 */
function readJournal(host: FsHost, scope: JournalScope, lockKnown: boolean): Journal | undefined {
  const { txn } = scope;
  const folderProblem = transactionFolderProblem(host, txn);
  if (folderProblem) throw new UnsafeJournalError(txn, [folderProblem]);
  let text: string;
  try {
    text = host.readFile(join(txn, JOURNAL));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  let journal: Journal;
  try {
    journal = JSON.parse(text) as Journal;
  } catch {
    throw new UnsafeJournalError(txn, [`${JOURNAL} is not valid JSON`]);
  }
  if (journal === null || typeof journal !== 'object' || journal.format !== 1) throw new UnsafeJournalError(txn, [`${JOURNAL} has an unknown format`]);
  const problems = journalProblems(host, scope, journal.ops, lockKnown);
  if (problems.length > 0) throw new UnsafeJournalError(txn, problems);
  return journal;
}

/**
 * The files of `dir` as committed: what is on disk, overlaid with the committed journal of
 * `home` if an interrupted run left one (what the next synth will complete). Writes nothing.
 */
export function readCommittedTree(dir: string, home: string = dir, host: FsHost = NODE_FS_HOST): FileTree {
  const tree = readTree(dir, host);
  const txn = transactionDir(home);
  if (!host.exists(txn)) return tree;
  const journal = readJournal(host, { home, txn }, false);
  const base = dirname(resolve(home));
  const root = resolve(dir);
  for (const op of journal?.ops ?? []) {
    const target = resolve(base, op.path);
    if (!target.startsWith(root + sep)) continue;
    const key = relative(root, target).split(sep).join('/');
    if (op.op === 'delete') tree.delete(key);
    else if (op.op === 'put-dir') {
      const staged = resolve(base, op.staged!);
      if (host.exists(staged)) for (const [p, text] of readTree(staged, host)) tree.set(`${key}/${p}`, text);
    } else if (op.op === 'put') {
      const staged = resolve(base, op.staged!);
      if (host.exists(staged)) tree.set(key, host.readFile(staged));
    }
  }
  // A file or folder staged (or being copied) beside its target (another mount), committed or not, is no part of the tree.
  const beside = (p: string): boolean => p.split('/').some((s) => s.startsWith('.') && s.endsWith(STAGED_BESIDE_SUFFIX));
  return new Map([...tree.entries()].filter(([p]) => !beside(p)).sort(([a], [b]) => compareStrings(a, b)));
}

/**
 * Whether an interrupted run left a committed write of `home` that is not all in place yet (a
 * journal in its transaction folder): what is on disk is then not what the journal commits.
 */
export function committedWritePending(home: string, host: FsHost = NODE_FS_HOST): boolean {
  const txn = transactionDir(home);
  return host.exists(txn) && readJournal(host, { home, txn }, false) !== undefined;
}

/** Where the committed content of `path` is: its staged copy while a committed journal of `home` still has to put it, else `path`. */
export function committedPath(home: string, path: string, host: FsHost = NODE_FS_HOST): string {
  const txn = transactionDir(home);
  const journal = host.exists(txn) ? readJournal(host, { home, txn, lockPath: path }, true) : undefined;
  const base = dirname(resolve(home));
  const op = journal?.ops.find((o) => o.op === 'put' && resolve(base, o.path) === resolve(path));
  return op && host.exists(resolve(base, op.staged!)) ? resolve(base, op.staged!) : path;
}

/** Folders (relative) that hold files in `before` and none in `after`, deepest first. */
function emptiedFolders(before: FileTree, after: FileTree): string[] {
  const folders = (tree: FileTree): Set<string> => {
    const out = new Set<string>();
    for (const p of tree.keys()) for (let d = p.lastIndexOf('/'); d > 0; d = p.lastIndexOf('/', d - 1)) out.add(p.slice(0, d));
    return out;
  };
  const kept = folders(after);
  return [...folders(before)].filter((d) => !kept.has(d)).sort((a, b) => b.split('/').length - a.split('/').length || compareStrings(a, b));
}

/**
 * Refuses a tree that names a path both as a file and as a folder, or whose paths are blocked on disk;
 * `newFolders` (relative to `root`) are folders staged whole, known to be absent: only their parents are checked.
 */
function checkTreeShape(host: FsHost, root: string, tree: FileTree, newFolders: readonly string[] = []): void {
  const files = new Set(tree.keys());
  for (const folder of newFolders) {
    if (files.has(folder) || files.has(folder.slice(0, folder.indexOf('/')))) throw new Error(`internal error: the output names ${folder} both as a file and as a folder`);
    checkNotBlocked(host, join(root, folder), true);
  }
  for (const p of files) {
    for (let d = p.indexOf('/'); d > 0; d = p.indexOf('/', d + 1)) {
      if (files.has(p.slice(0, d))) throw new Error(`internal error: the output names ${p.slice(0, d)} both as a file and as a folder`);
    }
  }
  checkNotBlocked(host, root, true);
  const checked = new Set<string>();
  for (const p of files) {
    const parts = p.split('/');
    for (let i = 1; i <= parts.length; i++) {
      const sub = parts.slice(0, i).join('/');
      if (checked.has(sub)) continue;
      checked.add(sub);
      if (!blocked(host, join(root, p), join(root, sub), i < parts.length)) break;
    }
  }
}

/** Refuses a file `path` (with `folder`: the folder `path`) blocked by a file among its parents or an entry of the other kind in its place. */
function checkNotBlocked(host: FsHost, path: string, folder: boolean): void {
  let p = dirname(path);
  while (dirname(p) !== p && !host.exists(p)) p = dirname(p);
  blocked(host, path, p, true);
  blocked(host, path, path, folder);
}

/** Whether `entry` exists (false: look no deeper); throws when it is a folder where a file must go or the reverse. */
function blocked(host: FsHost, target: string, entry: string, mustBeFolder: boolean): boolean {
  let st;
  try {
    st = host.lstat(entry);
  } catch {
    return false;
  }
  if (!st) return false;
  if (mustBeFolder !== st.isDirectory()) {
    throw new WriteFailedError(target, mustBeFolder ? 'ENOTDIR' : 'EISDIR', `nothing was changed; remove ${shownPath(entry)} (mirrorc did not write it) and run synth again`);
  }
  return true;
}

/** The device of `path` or of its nearest existing parent. */
function deviceOf(host: FsHost, path: string): number {
  for (let p = resolve(path); ; p = dirname(p)) {
    try {
      return host.stat(p).dev;
    } catch {
      if (dirname(p) === p) return -1;
    }
  }
}

/** The output path a failure is about: the one being written (`preferred`), else the error's destination or path. */
function errorPath(e: NodeJS.ErrnoException & { dest?: string }, preferred: string): string {
  return preferred !== '' ? preferred : (e.dest ?? e.path ?? '(unknown path)');
}

/** "dist/ and clusters/fleet.lock.json" (output folders `dirs`, single files `files`), as shown in messages. */
export function describeOutputs(dirs: readonly string[], files: readonly string[]): string {
  const names = [...dirs.map((d) => `${shownPath(resolve(d))}/`), ...files.map((f) => shownPath(resolve(f)))];
  return names.length <= 1 ? (names[0] ?? 'the output') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}
