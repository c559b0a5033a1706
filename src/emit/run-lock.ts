/**
 * One writer at a time per output folder. On Linux the lock is an abstract Unix socket named after
 * the folder's real path: listening on it succeeds for exactly one process, and the kernel releases
 * it when that process ends, however it ends, so there is no stale lock to guess about and no
 * steal race. Elsewhere it is a pid file created with O_EXCL, taken over when its process is gone.
 * The holder also writes `.<out>.run-lock.json` beside the folder (pid, host, command, since) for
 * the message of a run that finds the lock taken.
 */
import { createHash } from 'node:crypto';
import { createConnection, createServer, type Socket } from 'node:net';
import { hostname } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { NODE_FS_HOST } from './durable-fs.js';
import type { FsHost } from './fs-host.js';
import { shownPath } from './write-failure.js';
import { ExitCode } from '../errors/exit-codes.js';
import { MirrorcError } from '../errors/mirrorc-error.js';

/** Who holds a run lock. */
export interface RunLockHolder {
  readonly pid: number;
  readonly host: string;
  readonly command: string;
  /** When it took the lock (ISO 8601). */
  readonly since: string;
}

/** A held run lock. */
export interface RunLock {
  /** Releases the lock (idempotent). */
  release(): void;
}

/** Props of {@link acquireRunLock}. */
export interface RunLockProps {
  /** How long to wait for another run to release the lock, in seconds; 0 refuses at once. @default 60 */
  readonly waitSeconds?: number;
  /** The command shown to a run that finds the lock taken. @default 'mirrorc' */
  readonly command?: string;
  /** The clock, read for `since` and the wait deadline. @default the system clock */
  readonly now?: () => Date;
  /** Called once when the lock is taken and the run starts waiting, with the holder's description. @default nothing */
  readonly onWait?: (holder: string) => void;
  /** How the lock is held: an abstract Unix socket, or a pid file created with O_EXCL. @default 'socket' on Linux, else 'pid-file' */
  readonly mechanism?: 'socket' | 'pid-file';
  /** The file system (holder information, pid file, the folder's real path). @default the real one */
  readonly host?: FsHost;
}

/** The run lock is held by another run (and was not released in time). */
export class RunLockBusyError extends MirrorcError {
  readonly exitCode = ExitCode.BUSY;
  constructor(public readonly dir: string, public readonly holder: RunLockHolder | undefined, waitSeconds: number) {
    super(`${shownPath(dir)}/ is being written by another mirrorc run (${describeHolder(holder)}); ` +
      (waitSeconds > 0 ? `it did not finish within ${waitSeconds} s (--wait). ` : 'not waiting (--wait 0). ') +
      'Run again when it has finished, or with a longer --wait <seconds>');
    this.name = 'RunLockBusyError';
  }
}

/** The default wait for another run, in seconds. */
export const DEFAULT_WAIT_SECONDS = 60;

/** "pid 123 on host ci-7, "synth --offline", since 2026-01-01T10:00:00.000Z". */
export function describeHolder(holder: RunLockHolder | undefined): string {
  if (!holder) return 'holder unknown: it has not written its holder information yet';
  return `pid ${holder.pid} on host ${holder.host}, "${holder.command}", since ${holder.since}`;
}

/** The holder-information file of the output folder `dir`. */
export function holderInfoPath(dir: string): string {
  return join(dirname(resolve(dir)), `.${basename(resolve(dir))}.run-lock.json`);
}

/** Who holds the run lock of `dir`, as its holder-information file says (undefined when unreadable). */
export function readHolder(dir: string, host: FsHost = NODE_FS_HOST): RunLockHolder | undefined {
  try {
    const h = JSON.parse(host.readFile(holderInfoPath(dir))) as RunLockHolder;
    return typeof h.pid === 'number' && typeof h.host === 'string' ? h : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the run lock of output folder `dir`, waiting up to `waitSeconds`; throws {@link RunLockBusyError} when it cannot. */
export async function acquireRunLock(dir: string, props: RunLockProps = {}): Promise<RunLock> {
  const waitSeconds = props.waitSeconds ?? DEFAULT_WAIT_SECONDS;
  const now = props.now ?? (() => new Date());
  const deadline = now().getTime() + waitSeconds * 1000;
  const me: RunLockHolder = { pid: process.pid, host: hostname(), command: props.command ?? 'mirrorc', since: now().toISOString() };
  const socket = (props.mechanism ?? (process.platform === 'linux' ? 'socket' : 'pid-file')) === 'socket';
  const host = props.host ?? NODE_FS_HOST;
  const take = socket ? takeSocketLock : takePidFileLock;
  let waiting = false;
  for (;;) {
    const lock = await take(host, dir, me);
    if (lock) return lock;
    const left = deadline - now().getTime();
    if (left <= 0) throw new RunLockBusyError(dir, readHolder(dir, host), waitSeconds);
    if (!waiting) {
      waiting = true;
      props.onWait?.(describeHolder(readHolder(dir, host)));
    }
    await (socket ? untilSocketReleased(socketName(host, dir), left) : delay(Math.min(left, 500)));
  }
}

/** `\0mirrorc-<sha256 of the folder's real path>`: an abstract socket (no file), one per output folder. */
function socketName(host: FsHost, dir: string): string {
  return `\0mirrorc-${createHash('sha256').update(realPathOf(host, dir)).digest('hex')}`;
}

/** The real path of `dir`, also when it (or some parents) does not exist yet. */
function realPathOf(host: FsHost, dir: string): string {
  const abs = resolve(dir);
  for (let p = abs; ; p = dirname(p)) {
    try {
      return join(host.realpath(p), relative(p, abs));
    } catch {
      if (dirname(p) === p) return abs;
    }
  }
}

async function takeSocketLock(host: FsHost, dir: string, me: RunLockHolder): Promise<RunLock | undefined> {
  const server = createServer();
  const clients = new Set<Socket>();
  // A waiting run connects and learns of the release when its connection closes.
  server.on('connection', (s) => {
    s.unref();
    s.on('error', () => {});
    clients.add(s);
    s.on('close', () => clients.delete(s));
  });
  const listening = await new Promise<boolean>((resolvePromise, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => (e.code === 'EADDRINUSE' ? resolvePromise(false) : reject(e)));
    server.listen({ path: socketName(host, dir) }, () => resolvePromise(true));
  });
  if (!listening) return undefined;
  server.unref();
  writeHolderInfo(host, dir, me);
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      host.deleteQuietly(holderInfoPath(dir));
      server.close();
      for (const s of clients) s.destroy();
    },
  };
}

/** Resolves when the holder of the abstract socket `name` is gone (or after `ms`). */
function untilSocketReleased(name: string, ms: number): Promise<void> {
  return new Promise((resolvePromise) => {
    const socket = createConnection({ path: name });
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolvePromise();
    };
    // A fallback in case a release goes unnoticed; the loop then simply tries again.
    const timer = setTimeout(done, Math.min(ms, 2000));
    socket.on('error', done);
    socket.on('close', done);
  });
}

/** Other platforms: the holder file itself, created with O_EXCL; taken over when its process is gone. */
async function takePidFileLock(host: FsHost, dir: string, me: RunLockHolder): Promise<RunLock | undefined> {
  const path = holderInfoPath(dir);
  for (let attempt = 0; attempt < 2; attempt++) {
    if (host.createExclusive(path, JSON.stringify(me))) {
      let released = false;
      return { release: () => { if (!released) { released = true; host.deleteQuietly(path); } } };
    }
    const holder = readHolder(dir, host);
    // Only a holder on this host whose process is gone is taken over (a narrow race remains: see docs/safety/write-path.md).
    if (!holder || holder.host !== me.host || isAlive(holder.pid)) return undefined;
    // Someone else may take it over first: then the next attempt finds theirs.
    host.deleteQuietly(path);
  }
  return undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Best effort: a lock without holder information still excludes other runs. */
function writeHolderInfo(host: FsHost, dir: string, me: RunLockHolder): void {
  try {
    host.writeAtomically('holder-info', holderInfoPath(dir), `${JSON.stringify(me)}\n`);
  } catch (e) {
    if (!(e as NodeJS.ErrnoException).code) throw e;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
