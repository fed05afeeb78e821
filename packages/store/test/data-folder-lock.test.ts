/**
 * One process at a time in an embedded store's data folder: a live holder refuses others by
 * name, a dead one's lock is taken over, and releasing frees the folder.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCK_FILE, lockDataFolder } from '../src/data-folder-lock.js';
import { StoreProblem } from '../src/problems.js';

describe('lockDataFolder', () => {
  const root = mkdtempSync(join(tmpdir(), 'pp-lock-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('refuses a second holder while the first holds it, and frees it on release', () => {
    const dir = mkdtempSync(join(root, 'held-'));
    const release = lockDataFolder(dir, 'serve');
    expect(() => lockDataFolder(dir, 'admin')).toThrow(StoreProblem);
    release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    lockDataFolder(dir, 'admin')();
  });

  it('names a live holder of another process', () => {
    const dir = mkdtempSync(join(root, 'other-'));
    // The test runner's parent is alive and is not this process.
    const holder = { pid: process.ppid, command: 'serve', since: '2026-11-23T00:00:00.000Z' };
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify(holder));
    expect(() => lockDataFolder(dir, 'admin')).toThrow(
      `the embedded store in ${dir} is in use by \`poolparty serve\` (pid ${process.ppid}) since 2026-11-23T00:00:00.000Z`,
    );
  });

  it('takes over the lock of a process that is gone', () => {
    const dir = mkdtempSync(join(root, 'stale-'));
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    const pid = Number(gone.stdout.toString());
    writeFileSync(
      join(dir, LOCK_FILE),
      JSON.stringify({ pid, command: 'serve', since: '2026-11-23T00:00:00.000Z' }),
    );
    const release = lockDataFolder(dir, 'admin');
    expect(existsSync(join(dir, LOCK_FILE))).toBe(true);
    release();
  });
});
