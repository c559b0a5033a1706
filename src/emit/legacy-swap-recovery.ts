/**
 * Leftovers of the old write format (before the write-ahead transaction): the whole new tree was
 * written to `.<out>.staging-<pid>`, then `<out>` renamed to `.<out>.previous-<pid>`, staging renamed
 * to `<out>`, `<lock>.tmp` renamed to the lock. A repository may still hold them once.
 */
import { basename, dirname, join } from 'node:path';
import type { FsHost } from './fs-host.js';
import { UnsafeJournalError } from './journal-paths.js';

/**
 * Puts the output of an interrupted old-format run back together: the previous tree returns when
 * the new one was not completely in place with its lock (`dir` missing, or `<lock>.tmp` still
 * there); staging folders and the lock's temp file are deleted. Call it only under the run lock.
 */
export function recoverLegacySwap(host: FsHost, dir: string, lockPath?: string): void {
  const parent = dirname(dir);
  if (!host.exists(parent)) return;
  const name = basename(dir);
  const entries = host.readdir(parent);
  const lockTmp = lockPath !== undefined ? `${lockPath}.tmp` : undefined;
  // The old run wrote `<lock>.tmp` before the swap and renamed it after: if it is still there, the lock is the old one.
  const lockNotRenamed = lockTmp !== undefined && host.exists(lockTmp);
  // A leftover is only ever a folder this format made: a symbolic link (a commit can add one) would become dist/ and send every later write elsewhere.
  const links = entries.filter((e) => (e.startsWith(`.${name}.previous-`) || e.startsWith(`.${name}.staging-`)) && host.lstat(join(parent, e))?.isSymbolicLink() === true);
  for (const link of links) throw new UnsafeJournalError(join(parent, link), [`${link} is a symbolic link, not a folder an old mirrorc run left`]);
  for (const p of entries.filter((e) => e.startsWith(`.${name}.previous-`))) {
    const previous = join(parent, p);
    if (!host.exists(dir)) host.rename('legacy-recover', previous, dir);
    else if (lockNotRenamed) {
      host.removeTree('legacy-recover', dir);
      host.rename('legacy-recover', previous, dir);
    } else host.removeTree('legacy-recover', previous);
  }
  for (const s of entries.filter((e) => e.startsWith(`.${name}.staging-`))) host.removeTree('legacy-recover', join(parent, s));
  if (lockNotRenamed) host.unlink('legacy-recover', lockTmp!);
}
