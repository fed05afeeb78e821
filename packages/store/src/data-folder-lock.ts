/**
 * One process at a time in an embedded store's data folder.
 *
 * PGlite is PostgreSQL compiled into the process: it has no server to arbitrate between two
 * processes, and two of them writing one folder corrupt it. So whoever opens the embedded store —
 * `serve`, `migrate`, `admin …` — first takes `<dataDir>/poolparty.lock`, created exclusively and
 * naming its process. A lock whose process is gone (killed, crashed) is stale and taken over; a
 * live one refuses the newcomer with one line saying who holds the folder.
 *
 * A PID file rather than a timed lease: on one machine "is that process alive" is an exact
 * question, with no heartbeat to keep and no stale-after guess to tune.
 */
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { StoreProblem } from './problems.js';

export const LOCK_FILE = 'poolparty.lock';

interface LockOwner {
  readonly pid: number;
  readonly command: string;
  readonly since: string;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(file: string): LockOwner | null {
  try {
    const owner = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockOwner>;
    return typeof owner.pid === 'number' ? (owner as LockOwner) : null;
  } catch {
    return null;
  }
}

/** A lock file younger than this without a readable owner is still being written. */
const WRITE_GRACE_MS = 5_000;

function justCreated(file: string): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs < WRITE_GRACE_MS;
  } catch {
    return false;
  }
}

/**
 * Takes the data folder for `command` (e.g. "serve"); returns the release. Throws `StoreProblem`
 * while another live process holds it. The folder must exist.
 */
export function lockDataFolder(dataDir: string, command: string): () => void {
  const file = join(dataDir, LOCK_FILE);
  const owner: LockOwner = { pid: process.pid, command, since: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      try {
        writeSync(fd, `${JSON.stringify(owner)}\n`);
      } finally {
        closeSync(fd);
      }
      let released = false;
      return () => {
        if (released) return;
        released = true;
        if (readOwner(file)?.pid === process.pid) rmSync(file, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readOwner(file);
      if (holder !== null && holder.pid !== process.pid && isAlive(holder.pid)) {
        throw new StoreProblem(
          `the embedded store in ${dataDir} is in use by \`poolparty ${holder.command}\` (pid ${holder.pid}) since ${holder.since}; stop it first, or run the service on PostgreSQL (DATABASE_URL) to act while it runs (if no such process is PoolParty, remove ${file})`,
        );
      }
      if (holder !== null && holder.pid === process.pid) {
        throw new StoreProblem(`the embedded store in ${dataDir} is already open in this process`);
      }
      if (holder === null && justCreated(file)) {
        // Another process created it a moment ago and has not written its name yet.
        throw new StoreProblem(
          `the embedded store in ${dataDir} is being opened by another process`,
        );
      }
      // The holder is gone (or the file is unreadable after a crash mid-write): the lock is stale.
      rmSync(file, { force: true });
    }
  }
  throw new StoreProblem(`could not take ${file}: another process keeps creating it`);
}
