/**
 * Two ingesters of one stream in two processes: the second to advance the checkpoint waits for
 * the first to commit and then answers the offset the first moved it to, so it skips the updates
 * the first applied instead of applying them twice.
 */
import { advanceCheckpoint, type Database, setLedgerOffset } from '@poolparty/store';
import { type FreshSchema, openFreshSchema, postgresSkipReason } from '@poolparty/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const skipReason = await postgresSkipReason('checkpoint race suite');
const T0 = new Date('2026-03-01T12:00:00.000Z');

describe.skipIf(skipReason !== null)('two ingesters advancing one checkpoint', () => {
  let store: FreshSchema;
  let first: Database;
  let second: Database;

  beforeAll(async () => {
    store = await openFreshSchema('pp_checkpoint', { processes: 2 });
    [first, second] = store.databases as [Database, Database];
  });

  afterAll(() => store.close());

  it('the second waits for the first, then answers the offset the first committed', async () => {
    await setLedgerOffset(first, 'ledger', 10, T0);
    let releaseFirst = () => {};
    const firstHolds = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    let firstAdvanced = () => {};
    const advancedByFirst = new Promise<void>((resolve) => {
      firstAdvanced = resolve;
    });
    const firstTx = first.transaction(async (tx) => {
      const prior = await advanceCheckpoint(tx, 'ledger', 15, T0);
      firstAdvanced();
      await firstHolds;
      return prior;
    });
    await advancedByFirst;
    let secondAnswered = false;
    const secondTx = second
      .transaction((tx) => advanceCheckpoint(tx, 'ledger', 15, T0))
      .finally(() => {
        secondAnswered = true;
      });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(secondAnswered).toBe(false);
    releaseFirst();
    expect(await firstTx).toBe(10);
    expect(await secondTx).toBe(15);
  });
});
