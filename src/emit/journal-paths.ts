/**
 * The paths of a transaction journal (`.<home>.txn/journal.json`) and of its list of files staged
 * outside it (`outside.json`) are checked before anything reads or applies them. Both live in the
 * repository, so a commit can add or edit them: a journal that names a path outside the output
 * folder, the lock or the transaction folder (`..`, an absolute path, a symbolic link on the way
 * out) would otherwise make the next synth delete, replace or read any file the user can, a git
 * hook included. Such a journal is refused as a whole, nothing is touched, and the user is told
 * to delete it.
 */
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { FsHost } from './fs-host.js';
import { shownPath } from './write-failure.js';
import { InvalidInputError } from '../errors/mirrorc-error.js';

/** A transaction folder whose journal or staged-file list names a path it must not touch (exit code 2: bad input in the repository). */
export class UnsafeJournalError extends InvalidInputError {
  constructor(
    /** The transaction folder. */
    public readonly txn: string,
    /** What is wrong, one item per path. */
    public readonly problems: readonly string[],
  ) {
    super(
      `${shownPath(txn)} holds an interrupted write that mirrorc refuses to complete or undo, because it would touch paths outside the output folder and the lock ` +
        `(mirrorc never leaves such a write: it was added or edited by hand or by a commit):\n${problems.slice(0, 10).map((p) => `  - ${p}`).join('\n')}` +
        `${problems.length > 10 ? `\n  - ... and ${problems.length - 10} more` : ''}\n` +
        `  Nothing was changed. Delete ${shownPath(txn)} (and remove it from git), check what the commit that added it did, and run synth again`,
    );
    this.name = 'UnsafeJournalError';
  }
}

/** Where a journal of the output folder `home` may write. */
export interface JournalScope {
  /** The output folder (`dist/` or `delivery/`). */
  readonly home: string;
  /** The transaction folder, `.<home>.txn` beside it. */
  readonly txn: string;
  /** The lock file written with `home`, if any (the only file outside `home` a journal may put). */
  readonly lockPath?: string;
}

/** The suffix of a file staged beside its target (another file system than the transaction folder). */
export const STAGED_BESIDE_SUFFIX = '.mirrorc-staged';

/** One operation as a journal file holds it (not yet trusted). */
interface RawOp {
  readonly op?: unknown;
  readonly path?: unknown;
  readonly staged?: unknown;
  readonly step?: unknown;
}

/**
 * The problems of a journal's operations in `scope`; empty when every path is safe. `lockKnown`:
 * whether the caller knows the lock path (readers that only look inside `home` do not, and ignore
 * an operation on the lock; a writer must know it).
 */
export function journalProblems(host: FsHost, scope: JournalScope, ops: unknown, lockKnown: boolean): string[] {
  if (!Array.isArray(ops)) return ['its "ops" is not a list'];
  const base = dirname(resolve(scope.home));
  const problems: string[] = [];
  ops.forEach((raw: RawOp, i) => {
    const where = `operation ${i + 1}`;
    if (raw === null || typeof raw !== 'object' || !['put', 'put-dir', 'delete', 'rmdir'].includes(raw.op as string)) {
      problems.push(`${where}: ${JSON.stringify(raw?.op)} is not put, put-dir, delete or rmdir`);
      return;
    }
    const target = checkedRelative(base, raw.path);
    if (typeof target === 'string') {
      problems.push(`${where}: path ${target}`);
      return;
    }
    const insideHome = within(target.resolved, resolve(scope.home));
    const isLock = raw.op === 'put' && raw.step === 'apply-lock' && (scope.lockPath !== undefined ? target.resolved === resolve(scope.lockPath) : !lockKnown);
    if (!insideHome && !isLock) {
      problems.push(`${where}: ${raw.op} ${JSON.stringify(raw.path)} is outside ${shownPath(resolve(scope.home))}/${scope.lockPath !== undefined ? ` and is not the lock ${shownPath(resolve(scope.lockPath))}` : ''}`);
      return;
    }
    const escape = symlinkEscape(host, target.resolved, insideHome ? resolve(scope.home) : dirname(target.resolved));
    if (escape) problems.push(`${where}: ${raw.op} ${JSON.stringify(raw.path)}: ${escape}`);
    if (raw.op !== 'put' && raw.op !== 'put-dir') return;
    const staged = checkedRelative(base, raw.staged);
    if (typeof staged === 'string') {
      problems.push(`${where}: staged file ${staged}`);
      return;
    }
    const beside = join(dirname(target.resolved), `.${basename(target.resolved)}${STAGED_BESIDE_SUFFIX}`);
    if (raw.op === 'put-dir' && (!insideHome || (!within(staged.resolved, resolve(scope.txn)) && staged.resolved !== beside))) {
      problems.push(`${where}: a folder is put only inside ${shownPath(resolve(scope.home))}/, from inside ${shownPath(scope.txn)}/ or from beside itself`);
      return;
    }
    if (!within(staged.resolved, resolve(scope.txn)) && staged.resolved !== beside) {
      problems.push(`${where}: staged file ${JSON.stringify(raw.staged)} is neither inside ${shownPath(scope.txn)}/ nor beside its target`);
      return;
    }
    const stagedEscape = symlinkEscape(host, staged.resolved, within(staged.resolved, resolve(scope.txn)) ? resolve(scope.txn) : dirname(staged.resolved));
    if (stagedEscape) problems.push(`${where}: staged file ${JSON.stringify(raw.staged)}: ${stagedEscape}`);
  });
  return problems;
}

/** The problems of `outside.json` (files staged beside their targets, deleted when a transaction is discarded). */
export function outsideListProblems(host: FsHost, scope: JournalScope, list: unknown): string[] {
  if (!Array.isArray(list)) return ['its outside.json is not a list'];
  const base = dirname(resolve(scope.home));
  const problems: string[] = [];
  list.forEach((raw: unknown, i) => {
    const checked = checkedRelative(base, raw);
    if (typeof checked === 'string') {
      problems.push(`outside.json entry ${i + 1}: ${checked}`);
      return;
    }
    const name = basename(checked.resolved);
    const folderOk = within(checked.resolved, resolve(scope.home)) || (scope.lockPath !== undefined && dirname(checked.resolved) === dirname(resolve(scope.lockPath)));
    if (!name.startsWith('.') || !name.endsWith(STAGED_BESIDE_SUFFIX) || !folderOk) {
      problems.push(`outside.json entry ${i + 1}: ${JSON.stringify(raw)} is not a file staged by mirrorc (".<name>${STAGED_BESIDE_SUFFIX}" inside ${shownPath(resolve(scope.home))}/ or beside the lock)`);
      return;
    }
    const escape = symlinkEscape(host, checked.resolved, within(checked.resolved, resolve(scope.home)) ? resolve(scope.home) : dirname(checked.resolved));
    if (escape) problems.push(`outside.json entry ${i + 1}: ${JSON.stringify(raw)}: ${escape}`);
  });
  return problems;
}

/** Why the transaction folder itself is unsafe (a symbolic link, or not a folder), or undefined. */
export function transactionFolderProblem(host: FsHost, txn: string): string | undefined {
  const st = host.lstat(txn);
  if (!st) return undefined;
  if (st.isSymbolicLink()) return `${shownPath(txn)} is a symbolic link, not a folder mirrorc made`;
  if (!st.isDirectory()) return `${shownPath(txn)} is not a folder`;
  return undefined;
}

/**
 * A journal path relative to `base`, resolved; or why it is unsafe (not a string, absolute, a NUL, or
 * not in the canonical form a run writes: no `.`, empty or inner `..` segments such as
 * `dist/../.git`). A leading `..` remains possible (a lock beside another folder than `dist/`'s
 * parent); where the path then leads is checked by the caller: inside the output folder, the
 * transaction folder, or exactly the lock.
 */
function checkedRelative(base: string, value: unknown): { resolved: string } | string {
  if (typeof value !== 'string' || value === '') return `${JSON.stringify(value) ?? String(value)} is not a path`;
  if (isAbsolute(value)) return `${JSON.stringify(value)} is absolute`;
  if (/[\0]/.test(value)) return `${JSON.stringify(value)} holds a NUL character`;
  const resolved = resolve(base, value);
  if (relative(base, resolved).split(sep).join('/') !== value) return `${JSON.stringify(value)} is not in canonical form (a ".", empty or inner ".." segment)`;
  return { resolved };
}

/** Whether `path` lies strictly inside the folder `root`. */
function within(path: string, root: string): boolean {
  return path.startsWith(root + sep);
}

/**
 * Why `path` could reach outside `root` through a symbolic link (a folder on its way from `root`
 * that is a link, or `root` itself resolving elsewhere than its parent says), or undefined. The
 * last segment itself may be a link: unlink and rename act on the link, not on what it points to.
 */
function symlinkEscape(host: FsHost, path: string, root: string): string | undefined {
  const rootStat = host.lstat(root);
  if (rootStat?.isSymbolicLink()) return `${shownPath(root)} is a symbolic link`;
  const parts = relative(root, dirname(path)).split(sep).filter((p) => p !== '');
  let at = root;
  for (const part of parts) {
    at = join(at, part);
    const st = host.lstat(at);
    if (!st) return undefined;
    if (st.isSymbolicLink()) return `${shownPath(at)} on its way is a symbolic link (to ${safeRealpath(host, at)})`;
  }
  return undefined;
}

function safeRealpath(host: FsHost, path: string): string {
  try {
    return host.realpath(path);
  } catch {
    return 'nowhere';
  }
}
