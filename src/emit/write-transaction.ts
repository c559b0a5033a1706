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
}

/** What a transaction wrote. */
export interface WriteSummary {
  /** Files put (added or changed) and deleted; 0 and 0 when nothing differed (then nothing was touched). */
  readonly put: number;
  readonly deleted: number;
}

/** One operation of the journal; paths are relative to the home folder's parent. */
interface JournalOp {
  readonly op: 'put' | 'delete' | 'rmdir';
  readonly path: string;
  /** put: where the new content is staged. */
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
const KUSTOMIZATION = 'kustomization.yaml';
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
  const base = dirname(resolve(home));
  const txn = transactionDir(home);
  const rel = (abs: string): string => relative(base, abs);
  const puts: { path: string; text: string; step: WriteStep }[] = [];
  const deletes: string[] = [];
  const rmdirs: string[] = [];
  const shapes: [string, FileTree][] = [];
  for (const t of trees) {
    const root = resolve(t.dir);
    const changed = [...t.after].filter(([p, text]) => t.before.get(p) !== text).map(([p]) => p).sort(compareStrings);
    // Only paths about to be written can be blocked (unchanged files are on disk already).
    shapes.push([root, new Map(changed.map((p) => [p, t.after.get(p)!]))]);
    const objects = changed.filter((p) => basename(p) !== KUSTOMIZATION);
    const kustomizations = changed.filter((p) => basename(p) === KUSTOMIZATION);
    for (const p of objects) puts.push({ path: join(root, p), text: t.after.get(p)!, step: 'apply-object' });
    for (const p of kustomizations) puts.push({ path: join(root, p), text: t.after.get(p)!, step: 'apply-kustomization' });
    const removed = [...t.before.keys()].filter((p) => !t.after.has(p)).sort(compareStrings);
    appendAll(deletes, removed.filter((p) => basename(p) === KUSTOMIZATION).map((p) => join(root, p)));
    appendAll(deletes, removed.filter((p) => basename(p) !== KUSTOMIZATION).map((p) => join(root, p)));
    appendAll(rmdirs, emptiedFolders(t.before, t.after).map((d) => join(root, d)));
  }
  for (const f of files) {
    checkNotBlocked(host, resolve(f.path), false);
    let current: string | undefined;
    try {
      current = host.readFile(f.path);
    } catch {
      current = undefined;
    }
    if (current !== f.text) puts.push({ path: resolve(f.path), text: f.text, step: 'apply-lock' });
  }
  if (puts.length === 0 && deletes.length === 0) return { put: 0, deleted: 0 };
  for (const [root, tree] of shapes) checkTreeShape(host, root, tree);

  const what = describeOutputs(trees, files);
  // Never touch an earlier run's transaction here: it may be committed (the caller recovers it first).
  if (host.exists(txn)) throw new Error(`internal error: ${txn} exists; it must be recovered before a new write`);
  // Stage: nothing visible changes until the journal is committed.
  let current = txn;
  const ops: JournalOp[] = [];
  try {
    const txnDev = deviceOf(host, base);
    const outside: string[] = [];
    const devices = new Map<string, number>();
    const deviceOfFolder = (dir: string): number => {
      let dev = devices.get(dir);
      if (dev === undefined) devices.set(dir, (dev = deviceOf(host, dir)));
      return dev;
    };
    const staged = puts.map((p, i) => {
      const inside = deviceOfFolder(dirname(p.path)) === txnDev;
      const at = inside ? join(txn, 'files', String(Math.floor(i / STAGED_PER_FOLDER)), String(i)) : join(dirname(p.path), `.${basename(p.path)}${STAGED_BESIDE_SUFFIX}`);
      if (!inside) outside.push(rel(at));
      return at;
    });
    host.mkdir('txn-begin', join(txn, 'files'));
    if (outside.length > 0) host.writeFile('txn-begin', join(txn, OUTSIDE), JSON.stringify(outside), true);
    const stagedDirs = new Set<string>([join(txn, 'files'), txn, base]);
    puts.forEach((p, i) => {
      current = p.path;
      const dir = dirname(staged[i]!);
      if (!stagedDirs.has(dir) && !host.exists(dir)) host.mkdir('txn-begin', dir);
      host.writeFile('stage-file', staged[i]!, p.text, false);
      stagedDirs.add(dir);
      ops.push({ op: 'put', path: rel(p.path), staged: rel(staged[i]!), step: p.step });
    });
    current = '';
    const syncedDevices = host.flush('stage-sync', staged);
    for (const d of deletes) ops.push({ op: 'delete', path: rel(d), step: 'apply-delete' });
    for (const d of rmdirs) ops.push({ op: 'rmdir', path: rel(d), step: 'apply-rmdir' });
    // Lock (and other single files) last: after the tree they describe is complete.
    ops.sort((a, b) => rank(a) - rank(b));
    // syncfs made the entries of every folder on its file system durable; others get their fsync.
    for (const d of stagedDirs) if (!syncedDevices.has(deviceOfFolder(d))) host.fsyncDirectory(d);
    current = join(txn, JOURNAL);
    const journal: Journal = { format: 1, ops };
    host.writeFile('journal-write', join(txn, JOURNAL_TMP), `${JSON.stringify(journal, null, 1)}\n`, true);
    host.rename('journal-commit', join(txn, JOURNAL_TMP), join(txn, JOURNAL));
    host.fsyncDirectory(txn);
  } catch (e) {
    if (!isFsError(e)) throw e;
    const cleaned = tryDiscard(host, home, files[0]?.path);
    throw new WriteFailedError(errorPath(e, current), e.code, `nothing was changed: ${what} ${what.includes(' and ') ? 'are' : 'is'} as before${cleaned ? '' : ` (the unfinished ${shownPath(txn)}/ is removed by the next synth)`}; fix the cause and run synth again`);
  }
  // Apply: from here on the new output is committed; a failure is completed by the next run.
  try {
    applyJournal(host, base, txn, { format: 1, ops });
  } catch (e) {
    if (!isFsError(e)) throw e;
    throw new WriteFailedError(errorPath(e, ''), e.code, `the new ${what} ${what.includes(' and ') ? 'are' : 'is'} committed (journal in ${shownPath(txn)}/) but not all in place yet; plan and check already read the new output, and the next synth completes it once the cause is fixed`);
  }
  return { put: puts.length, deleted: deletes.length };
}

/** Order of the journal: object files, kustomizations, deletes (kustomizations first), emptied folders, then the lock. */
function rank(op: JournalOp): number {
  return ['apply-object', 'apply-kustomization', 'apply-delete', 'apply-rmdir', 'apply-lock'].indexOf(op.step);
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
    if (op.op === 'put') {
      const staged = resolve(base, op.staged!);
      if (!host.exists(staged)) continue;
      if (!folders.has(dirname(target)) && !host.exists(dirname(target))) {
        host.mkdir('apply-mkdir', dirname(target));
        for (let d = dirname(target); d !== base && d.startsWith(base + sep); d = dirname(d)) touched.add(dirname(d));
      }
      host.rename(op.step, staged, target);
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
  for (const p of outside as string[]) host.unlink('discard', resolve(base, p));
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
  const journal = host.exists(txn) ? readJournal(host, { home, txn }, false) : undefined;
  if (!journal) return tree;
  const base = dirname(resolve(home));
  const root = resolve(dir);
  for (const op of journal.ops) {
    const target = resolve(base, op.path);
    if (!target.startsWith(root + sep)) continue;
    const key = relative(root, target).split(sep).join('/');
    if (op.op === 'delete') tree.delete(key);
    else if (op.op === 'put') {
      const staged = resolve(base, op.staged!);
      if (host.exists(staged)) tree.set(key, host.readFile(staged));
      // A file staged beside its target (another file system) is no file of the tree.
      if (staged.startsWith(root + sep)) tree.delete(relative(root, staged).split(sep).join('/'));
    }
  }
  return new Map([...tree.entries()].sort(([a], [b]) => compareStrings(a, b)));
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

/** Refuses a tree that names a path both as a file and as a folder, or whose paths are blocked on disk. */
function checkTreeShape(host: FsHost, root: string, tree: FileTree): void {
  const files = new Set(tree.keys());
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

/** "dist/ and clusters/fleet.lock.json", as shown in messages. */
function describeOutputs(trees: readonly TreeWrite[], files: readonly FileWrite[]): string {
  const names = [...trees.map((t) => `${shownPath(resolve(t.dir))}/`), ...files.map((f) => shownPath(resolve(f.path)))];
  return names.length <= 1 ? (names[0] ?? 'the output') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}
