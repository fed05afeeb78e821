import { useEngineWorld, waitFor } from '@poolparty/settlement/testing';
import type { Database } from '@poolparty/store';
import { countIncompleteCompletedSwapsByPool, listPools, type PoolRecord } from '@poolparty/store';
import { afterEach, describe, expect, it } from 'vitest';
import { createLiveQuoter } from '../src/market/live-quoter.js';
import type { QuoteRequest, Quoter } from '../src/market/quoter.js';

const world = useEngineWorld();
const ANYONE = { apiKeyId: null, walletParty: null };

function requestFor(pool: PoolRecord): QuoteRequest {
  return {
    from: pool.tokenA.id,
    fromAdmin: pool.tokenA.admin,
    to: pool.tokenB.id,
    toAdmin: pool.tokenB.admin,
    amount: '100',
    poolId: pool.poolId,
  };
}

describe('live quoter invalidations', () => {
  let release: () => void = () => {};
  let quoter: Quoter | null = null;

  afterEach(async () => {
    release();
    await quoter?.close();
    quoter = null;
  });

  it('answers quotes of other pools while one pool is re-read, and that pool after its re-read', async () => {
    const h = await world.harness();
    const pools = await listPools(h.db);
    const quoted = pools.find((pool) => pool.poolId === 'amulet-usdcx');
    const changed = pools.find((pool) => pool.poolId !== 'amulet-usdcx');
    if (!quoted || !changed) throw new Error('the seed has fewer than two pools');
    // The store answers the history read of `changed` alone only once released.
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let held = 0;
    const db: Database = {
      kind: h.db.kind,
      query: async (sql, params) => {
        const ids = params?.[0];
        if (sql.includes('fee_events') && Array.isArray(ids) && ids.join() === changed.poolId) {
          held += 1;
          await gate;
        }
        return h.db.query(sql, params);
      },
      exec: (script) => h.db.exec(script),
      transaction: (fn) => h.db.transaction(fn),
      listen: (channel, onPayload, onLost) => h.db.listen(channel, onPayload, onLost),
      close: () => h.db.close(),
    };
    const live = await createLiveQuoter({
      db,
      ledger: h.ledger,
      clock: h.clock,
      countIncompleteCompletedSwaps: countIncompleteCompletedSwapsByPool,
    });
    quoter = live;

    live.invalidate(changed.poolId);
    await waitFor(async () => held > 0, 'the re-read of the changed pool');
    let changedAnswered = false;
    const changedQuote = live.quote(requestFor(changed), ANYONE).then(
      () => {
        changedAnswered = true;
      },
      () => {
        changedAnswered = true;
      },
    );

    const priced = await live.quote(requestFor(quoted), ANYONE);
    expect(priced.pool.poolId).toBe('amulet-usdcx');
    expect(changedAnswered).toBe(false);

    release();
    await changedQuote;
    expect(changedAnswered).toBe(true);
  });
});
