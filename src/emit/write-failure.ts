/** A file-system error of the write path, in plain words (exit code 8). */
import { isAbsolute, relative } from 'node:path';
import { ExitCode } from '../errors/exit-codes.js';
import { MirrorcError } from '../errors/mirrorc-error.js';

/** What each error code means for the person running synth. */
const MEANINGS: Readonly<Record<string, string>> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exceeded',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EIO: 'the disk reported an input/output error',
  EMFILE: 'too many files are open',
  ENFILE: 'too many files are open',
  ENOTDIR: 'a file is in the way where a folder must go',
  EISDIR: 'a folder is in the way where a file must go',
  EEXIST: 'a file or folder is in the way',
  ENOTEMPTY: 'a folder that must go is not empty',
  ENOENT: 'a folder on the way does not exist',
  ENAMETOOLONG: 'the path is too long',
  EXDEV: 'the paths are on different file systems',
};

/** The file system refused a write; `message` names the path, the cause and the state left behind. */
export class WriteFailedError extends MirrorcError {
  readonly exitCode = ExitCode.WRITE_FAILED;
  constructor(
    /** The path that could not be written. */
    public readonly path: string,
    /** The error code (ENOSPC, EROFS, ...). */
    public readonly code: string,
    /** What dist/ and the lock hold now, and what to do. */
    outcome: string,
  ) {
    super(`cannot write ${shownPath(path)}: ${meaning(code)} (${code}); ${outcome}`);
    this.name = 'WriteFailedError';
  }
}

/** The plain-word meaning of an fs error code. */
export function meaning(code: string): string {
  return MEANINGS[code] ?? 'the file system refused the write';
}

/** Whether `e` is an error of the file system (it has a string `code` like ENOSPC). */
export function isFsError(e: unknown): e is NodeJS.ErrnoException & { code: string } {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string' && /^E[A-Z0-9]+$/.test((e as NodeJS.ErrnoException).code!);
}

/** `path` relative to the working folder when inside it (as the user typed it), else as it is. */
export function shownPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}
