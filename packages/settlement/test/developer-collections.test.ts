/**
 * Developer earnings and their collection, exactly once: a swap credits half its platform fee to
 * the key's developer; a collection pays exactly what accrued to the developer's party, once,
 * whatever crashes, retries or concurrent requests come between; and the books keep equalling
 * the swap party's holdings.
 */
import { Amount } from '@poolparty/core';
import { type CollectionRecord, collectableEarnings, getCollection } from '@poolparty/store';
import { postgresSkipReason } from '@poolparty/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CollectionRefused, recordCollection } from '../src/collections.js';
import type { EngineStep } from '../src/index.js';
import {
  completedSwap,
  type EngineHarness,
  startedWithCompletedSwap,
  useEngineWorld,
  waitFor,
} from '../testing/engine.js';
import { acrossACrashAt, refusingTransfers } from '../testing/faults.js';
import { openPostgresHarness, type PostgresHarness } from '../testing/postgres-harness.js';

const world = useEngineWorld();

const POOL = 'amulet-usdcx';

function halfOf(platformFee: string): Amount {
  return Amount.parse(platformFee).mulDiv(1n, 2n, 'down');
}

function collectable(h: EngineHarness): Promise<Amount> {
  return collectableEarnings(h.db, h.seed.developer.partyId, POOL, 'a');
}

function collect(h: EngineHarness): Promise<CollectionRecord> {
  return recordCollection(h.db, {
    developerParty: h.seed.developer.partyId,
    poolId: POOL,
    instrument: h.amulet,
    now: h.clock.now(),
  });
}

async function settled(h: EngineHarness, collectionId: string): Promise<CollectionRecord> {
  return waitFor(async () => {
    const found = await getCollection(h.db, collectionId);
    return found !== null && (found.status === 'collected' || found.status === 'returned')
      ? found
      : null;
  }, `collection ${collectionId} to settle`);
}

async function expectCollectionRefused(attempt: Promise<unknown>, code: CollectionRefused['code']) {
  const error = await attempt.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CollectionRefused);
  expect((error as CollectionRefused).code).toBe(code);
}

describe('developer earnings and collections', () => {
  it("a swap credits exactly half its platform fee to the key's developer", async () => {
    const h = await world.harness();
    await h.startEngine();
    await h.caughtUp();
    expect(await collectable(h)).toEqual(Amount.ZERO);
    const intent = await completedSwap(h);
    expect(intent.platformFeeAmount.isPositive()).toBe(true);
    expect(await collectable(h)).toEqual(halfOf(intent.platformFeeAmount.toString()));
    // Earnings are in the fee's instrument: nothing accrued on the output side.
    expect(await collectableEarnings(h.db, h.seed.developer.partyId, POOL, 'b')).toEqual(
      Amount.ZERO,
    );
  });

  it('a collection pays exactly what accrued to the developer party, and a second pays nothing', async () => {
    const h = await world.harness();
    const intent = await startedWithCompletedSwap(h);
    const accrued = halfOf(intent.platformFeeAmount.toString());
    const before = await h.balance(h.seed.developer, h.amulet);

    const collection = await collect(h);
    expect(collection.amount).toEqual(accrued);
    expect(collection.status).toBe('pending');
    const done = await settled(h, collection.collectionId);
    expect(done.status).toBe('collected');
    expect(done.updateId).toMatch(/.+/);

    expect(await h.balance(h.seed.developer, h.amulet)).toEqual(before.add(accrued));
    expect(await h.transfersWithReason(`collect:${collection.collectionId}`)).toBe(1);
    await h.caughtUp();
    await h.booksMatchLedger();
    // The reconciler agrees: the collected amount left the books with the holdings.
    const report = await h.engine?.reconcileNow();
    expect(report?.runs.find((run) => run.poolId === POOL)?.ok).toBe(true);

    await expectCollectionRefused(collect(h), 'nothing_to_collect');
    expect(await collectable(h)).toEqual(Amount.ZERO);
    expect(await h.balance(h.seed.developer, h.amulet)).toEqual(before.add(accrued));

    // Later earnings are collectable again, and only they.
    const next = await completedSwap(h);
    expect(await collectable(h)).toEqual(halfOf(next.platformFeeAmount.toString()));
  });

  it('refuses a pool that does not trade the instrument, and a pool that does not exist', async () => {
    const h = await world.harness();
    const base = { developerParty: h.seed.developer.partyId, now: h.clock.now() };
    await expectCollectionRefused(
      recordCollection(h.db, { ...base, poolId: POOL, instrument: h.seed.instruments.cbtc }),
      'token_not_found',
    );
    await expectCollectionRefused(
      recordCollection(h.db, { ...base, poolId: 'no-such-pool', instrument: h.amulet }),
      'pool_not_found',
    );
  });

  it('collects nothing of another developer', async () => {
    const h = await world.harness();
    await startedWithCompletedSwap(h);
    await h.db.query(`INSERT INTO developers (party_id, created_at) VALUES ($1, $2)`, [
      h.bob.partyId,
      h.clock.now(),
    ]);
    await expectCollectionRefused(
      recordCollection(h.db, {
        developerParty: h.bob.partyId,
        poolId: POOL,
        instrument: h.amulet,
        now: h.clock.now(),
      }),
      'nothing_to_collect',
    );
  });

  it('a collection the ledger keeps refusing returns to what is collectable', async () => {
    const h = await world.harness();
    const intent = await startedWithCompletedSwap(h);
    await h.stopEngine();
    await h.startEngine({ ledger: refusingTransfers(h.ledger) });
    const before = await h.balance(h.seed.developer, h.amulet);
    const collection = await collect(h);
    const done = await settled(h, collection.collectionId);
    expect(done.status).toBe('returned');
    expect(await h.balance(h.seed.developer, h.amulet)).toEqual(before);
    expect(await collectable(h)).toEqual(halfOf(intent.platformFeeAmount.toString()));
    await h.booksMatchLedger();
  });
});

describe('collections through offers and ledger faults', () => {
  it('an offer the developer leaves unanswered is withdrawn, and the amount is collectable again', async () => {
    const h = await world.harness();
    await h.startEngine();
    await h.caughtUp();
    // Dana pre-approves nothing: a collection to her is an offer she must accept.
    const dana = await h.newParty('dana', []);
    await h.db.query('INSERT INTO developers (party_id, created_at) VALUES ($1, $2)', [
      dana.partyId,
      h.clock.now(),
    ]);
    const intent = await h.createIntent(h.alice, h.amulet, '1000', {
      developerParty: dana.partyId,
    });
    await h.deposit(h.alice, h.amulet, '1000', { reference: intent.depositReference });
    await h.waitForStatus(intent.intentId, 'completed');
    const accrued = halfOf(intent.platformFeeAmount.toString());
    const toDana = () =>
      recordCollection(h.db, {
        developerParty: dana.partyId,
        poolId: POOL,
        instrument: h.amulet,
        now: h.clock.now(),
      });
    const offeredOf = (collectionId: string) =>
      waitFor(async () => {
        const found = await getCollection(h.db, collectionId);
        return found?.status === 'offered' ? found : null;
      }, 'the collection offer');

    const first = await toDana();
    const offered = await offeredOf(first.collectionId);
    if (offered.offerExpiresAt === null) throw new Error('an offer without a deadline');
    await expectCollectionRefused(toDana(), 'nothing_to_collect');
    await h.advanceClock(offered.offerExpiresAt.getTime() - h.clock.now().getTime() + 1);
    const returned = await settled(h, first.collectionId);
    expect(returned.status).toBe('returned');
    expect(await h.ledger.getPendingOffers(dana.partyId)).toEqual([]);
    expect(await h.balance(dana, h.amulet)).toEqual(Amount.ZERO);
    await h.caughtUp();
    await h.booksMatchLedger();

    // Collectable again: this time she accepts.
    const second = await toDana();
    expect(second.amount).toEqual(accrued);
    const again = await offeredOf(second.collectionId);
    await h.ledger.acceptOffer({
      commandId: `dana-accepts-${second.collectionId}`,
      offerId: again.offerId ?? '',
      actor: dana.partyId,
    });
    expect((await settled(h, second.collectionId)).status).toBe('collected');
    expect(await h.balance(dana, h.amulet)).toEqual(accrued);
    await h.caughtUp();
    await h.booksMatchLedger();
  });

  it('duplicate deliveries, dropped streams, refusals and timeouts after commit pay once', async () => {
    const h = await world.harness();
    await h.startEngine({ settings: { payoutAttemptsMax: 50 } });
    await h.caughtUp();
    const intent = await completedSwap(h);
    const accrued = halfOf(intent.platformFeeAmount.toString());
    const before = await h.balance(h.seed.developer, h.amulet);
    h.ledger.setFaults({
      duplicateDeliveryRate: 0.5,
      dropStreamRate: 0.2,
      rejectRate: 0.3,
      timeoutAfterCommitRate: 0.5,
      seed: 7,
    });
    const collection = await collect(h);
    expect((await settled(h, collection.collectionId)).status).toBe('collected');
    h.ledger.setFaults({});
    expect(await h.balance(h.seed.developer, h.amulet)).toEqual(before.add(accrued));
    expect(await h.transfersWithReason(`collect:${collection.collectionId}`)).toBe(1);
    await h.caughtUp();
    await h.booksMatchLedger();
  });
});

describe('a crash between recording a collection and its confirmation: paid once', () => {
  const steps: readonly EngineStep[] = ['command_recorded', 'command_submitted', 'update_ingested'];
  for (const step of steps) {
    it(`crash at ${step}, then a restart`, async () => {
      const h = await world.harness();
      const intent = await startedWithCompletedSwap(h);
      await h.caughtUp();
      await h.stopEngine();
      const accrued = halfOf(intent.platformFeeAmount.toString());
      const before = await h.balance(h.seed.developer, h.amulet);

      const collection = await acrossACrashAt(h, step, () => collect(h));

      const done = await settled(h, collection.collectionId);
      expect(done.status).toBe('collected');
      expect(await h.balance(h.seed.developer, h.amulet)).toEqual(before.add(accrued));
      expect(await h.transfersWithReason(`collect:${collection.collectionId}`)).toBe(1);
      await expectCollectionRefused(collect(h), 'nothing_to_collect');
      await h.caughtUp();
      await h.booksMatchLedger();
    });
  }
});

describe('two collections requested at once on PostgreSQL: one pays', () => {
  let skip: string | null = null;
  let postgres: PostgresHarness | null = null;
  let h: EngineHarness;

  beforeAll(async () => {
    skip = await postgresSkipReason('concurrent collections');
    if (skip !== null) return;
    postgres = await openPostgresHarness('collections');
    h = postgres.harness;
  }, 60_000);
  afterAll(async () => {
    await postgres?.close();
  });

  it('pays the accrued amount once, however the two requests interleave', async (context) => {
    if (skip !== null) context.skip();
    const intent = await startedWithCompletedSwap(h);
    const accrued = halfOf(intent.platformFeeAmount.toString());
    const before = await h.balance(h.seed.developer, h.amulet);

    const outcomes = await Promise.allSettled([collect(h), collect(h), collect(h)]);
    const paid = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.filter((o) => o.status === 'rejected');
    expect(paid).toHaveLength(1);
    for (const refusal of refused) {
      expect(refusal.reason).toBeInstanceOf(CollectionRefused);
      expect((refusal.reason as CollectionRefused).code).toBe('nothing_to_collect');
    }
    const [winner] = paid as PromiseFulfilledResult<CollectionRecord>[];
    if (!winner) throw new Error('no collection was recorded');
    expect(winner.value.amount).toEqual(accrued);
    await settled(h, winner.value.collectionId);
    expect(await h.balance(h.seed.developer, h.amulet)).toEqual(before.add(accrued));
    await h.caughtUp();
    await h.booksMatchLedger();
  });
});

describe('migration 0009 (developer collections)', () => {
  const insertCommand = (h: EngineHarness, id: string, collectionId: string | null) =>
    h.db.query(
      `INSERT INTO ledger_commands (command_id, leg, attempt, status, created_at, updated_at,
         collection_id) VALUES ($1, 'collect', 0, 'recorded', $2, $2, $3)`,
      [id, h.clock.now(), collectionId],
    );

  it('refuses a command with no intent, deposit or collection as its subject', async () => {
    const h = await world.harness();
    await expect(insertCommand(h, 'orphan:collect:0', null)).rejects.toThrow(
      /ledger_commands_subject_check/,
    );
  });

  it('refuses a command naming a collection that does not exist', async () => {
    const h = await world.harness();
    await expect(insertCommand(h, 'col_none:collect:0', 'col_none')).rejects.toThrow(/foreign key/);
  });

  it('refuses a collection of nothing', async () => {
    const h = await world.harness();
    await expect(
      h.db.query(
        `INSERT INTO developer_collections (collection_id, developer_party, pool_id, side,
           instrument_id, instrument_admin, amount, status, command_id, created_at)
         VALUES ('col_zero', $1, $2, 'a', 'Amulet', $3, 0, 'pending', 'col_zero:collect:0', $4)`,
        [h.seed.developer.partyId, POOL, h.amulet.admin, h.clock.now()],
      ),
    ).rejects.toThrow(/developer_collections_amount_check/);
  });
});
