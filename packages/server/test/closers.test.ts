/**
 * Closing what a start opened: every part, the last opened first, whatever became of the others,
 * and each part that did not close reported with what closing it threw — also by a running
 * service, whose close then fails (and `poolparty serve` exits 1).
 */
import { rmSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { CloseFailure, Closers } from '../src/closers.js';
import { startTestService } from './support/service.js';

/** Migrating a fresh store and seeding the devnet ledger takes seconds on a busy machine. */
const SERVICE_START_TIMEOUT_MS = 60_000;

describe('closers', () => {
  it('closes every part in reverse order and answers no failure when all closed', async () => {
    const closed: string[] = [];
    const closers = new Closers();
    for (const what of ['the store', 'the ledger', 'the HTTP server']) {
      closers.push({ what, close: async () => void closed.push(what) });
    }
    const reported: CloseFailure[] = [];
    expect(await closers.closeAll((failure) => reported.push(failure))).toEqual([]);
    expect(closed).toEqual(['the HTTP server', 'the ledger', 'the store']);
    expect(reported).toEqual([]);
  });

  it('goes on past a part that failed, and reports it with its cause', async () => {
    const closed: string[] = [];
    const cause = new Error('connection reset');
    const closers = new Closers();
    closers.push(
      { what: 'the store', close: async () => void closed.push('the store') },
      {
        what: 'the ledger',
        close: async () => {
          throw cause;
        },
      },
      { what: 'the HTTP server', close: async () => void closed.push('the HTTP server') },
    );
    const reported: CloseFailure[] = [];
    const failures = await closers.closeAll((failure) => reported.push(failure));
    expect(closed).toEqual(['the HTTP server', 'the store']);
    expect(failures).toEqual(reported);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toBeInstanceOf(CloseFailure);
    expect(failures[0]?.what).toBe('the ledger');
    expect(failures[0]?.cause).toBe(cause);
    expect(failures[0]?.message).toBe('closing the ledger failed: connection reset');
  });

  it('closes nothing twice', async () => {
    let closes = 0;
    const closers = new Closers();
    closers.push({ what: 'the store', close: async () => void closes++ });
    await closers.closeAll(() => {});
    await closers.closeAll(() => {});
    expect(closes).toBe(1);
  });
});

describe('a running service', () => {
  it(
    'logs a part that did not close, closes the rest, and fails its close',
    async () => {
      const t = await startTestService();
      const { quoter } = t.service.ctx;
      const stopQuoter = quoter.close.bind(quoter);
      const cause = new Error('quoter refused to stop');
      quoter.close = () => Promise.reject(cause);
      const logged = vi.spyOn(t.service.app.log, 'error');
      const closed = await t.close().then(
        () => null,
        (error: unknown) => error,
      );
      expect(closed).toBeInstanceOf(AggregateError);
      const [failure] = (closed as AggregateError).errors as CloseFailure[];
      expect(failure?.what).toBe('the quoter');
      expect(failure?.cause).toBe(cause);
      expect(logged).toHaveBeenCalledWith(
        { err: failure },
        'closing the quoter failed: quoter refused to stop',
      );
      // The parts opened before it were closed all the same: the store answers no more.
      await expect(t.service.ctx.db.query('SELECT 1')).rejects.toThrow();
      await stopQuoter();
      rmSync(t.settings.dataDir, { recursive: true, force: true });
    },
    SERVICE_START_TIMEOUT_MS,
  );
});
