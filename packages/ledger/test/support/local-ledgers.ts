/** Local ledgers a test file opens, on the clock's fixed start, closed after each test. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { type LocalLedger, openLocalLedger } from '../../src/index.js';

/** When a test's ledger clock starts: a fixed time, so deadlines read the same every run. */
export const START = new Date('2030-01-01T00:00:00Z');

/**
 * Opens ledgers (in memory, or in a data folder of `dataFolder()`) that are closed, and their
 * folders removed, after each test of the file that calls this.
 */
export function localLedgers(folderPrefix: string) {
  const ledgers: LocalLedger[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(ledgers.splice(0).map((ledger) => ledger.close()));
    await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return {
    async open(dataDir?: string): Promise<LocalLedger> {
      const ledger = await openLocalLedger({
        startTime: START,
        ...(dataDir !== undefined && { dataDir }),
      });
      ledgers.push(ledger);
      return ledger;
    },
    async dataFolder(): Promise<string> {
      const dir = await mkdtemp(join(tmpdir(), folderPrefix));
      dirs.push(dir);
      return dir;
    },
  };
}
