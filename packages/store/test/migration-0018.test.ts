/**
 * Migration 0018, the withdrawals' outbox: a withdrawal recorded before it starts from one event of
 * its state then; after it, the burn and every payout move write their event in the statement
 * that made them — a change of status as a state event, a payout that moved while the status
 * stood as a leg event — and a write that moves nothing writes none.
 */
import { Amount } from '@poolparty/core';
import { describe, expect, it } from 'vitest';
import {
  type Database,
  insertWithdrawal,
  listWithdrawalEvents,
  migrate,
  moveWithdrawalPayout,
} from '../src/index.js';
import { insertEarlyPool, usePgliteStores } from '../testing/index.js';

const T0 = new Date('2026-03-01T12:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const openStore = usePgliteStores();

async function storeBefore0018(): Promise<Database> {
  const db = await openStore({ before: '0018' });
  await db.query('INSERT INTO developers (party_id, created_at) VALUES ($1, $2)', ['dev::1', T0]);
  await db.query(
    `INSERT INTO api_keys (key_id, developer_party, key_hash, prefix, environment, created_at)
     VALUES ('key_1', 'dev::1', $1, 'pp_test', 'devnet', $2)`,
    ['0'.repeat(64), T0],
  );
  await insertEarlyPool(db, T0);
  return db;
}

function recordWithdrawal(db: Database, withdrawalId: string, amountB = '7.25') {
  return insertWithdrawal(db, {
    withdrawalId,
    poolId: 'amulet-usdcx',
    providerParty: 'alice::1',
    apiKeyId: 'key_1',
    units: Amount.parse('10'),
    amountA: Amount.parse('50'),
    amountB: Amount.parse(amountB),
    minimumA: Amount.ZERO,
    minimumB: Amount.ZERO,
    createdAt: at(1),
  });
}

const shapeOf = (events: Awaited<ReturnType<typeof listWithdrawalEvents>>) =>
  events.map(({ status, legEvent, side, payoutA, payoutB }) => ({
    status,
    legEvent,
    side,
    payoutA,
    payoutB,
  }));

describe('migration 0018', () => {
  it('gives a withdrawal recorded before it one event of its state then', async () => {
    const db = await storeBefore0018();
    await recordWithdrawal(db, 'wdr_before000000001');
    await migrate(db);
    expect(shapeOf(await listWithdrawalEvents(db, 'wdr_before000000001'))).toEqual([
      { status: 'paying', legEvent: null, side: null, payoutA: 'pending', payoutB: 'pending' },
    ]);
  });

  it('writes an event for the burn and each payout move, in order, and none for a non-move', async () => {
    const db = await storeBefore0018();
    await migrate(db);
    const id = 'wdr_after0000000001';
    await recordWithdrawal(db, id);
    const move = (side: 'a' | 'b', from: string[], to: string, seconds: number) =>
      moveWithdrawalPayout(db, {
        withdrawalId: id,
        side,
        from: from as never,
        to: to as never,
        now: at(seconds),
      });
    await move('a', ['pending'], 'offered', 2);
    // A move from a state the side is not in changes nothing.
    expect(await move('a', ['pending'], 'paid', 3)).toBeNull();
    await move('a', ['offered'], 'flagged', 4);
    await move('b', ['pending'], 'paid', 5);
    await move('a', ['flagged'], 'pending', 6);
    await move('a', ['pending'], 'paid', 7);
    const events = await listWithdrawalEvents(db, id);
    expect(shapeOf(events)).toEqual([
      { status: 'paying', legEvent: null, side: null, payoutA: 'pending', payoutB: 'pending' },
      {
        status: 'paying',
        legEvent: 'payout_offered',
        side: 'a',
        payoutA: 'offered',
        payoutB: 'pending',
      },
      { status: 'flagged', legEvent: null, side: 'a', payoutA: 'flagged', payoutB: 'pending' },
      {
        status: 'flagged',
        legEvent: 'payout_paid',
        side: 'b',
        payoutA: 'flagged',
        payoutB: 'paid',
      },
      { status: 'paying', legEvent: null, side: 'a', payoutA: 'pending', payoutB: 'paid' },
      { status: 'completed', legEvent: null, side: 'a', payoutA: 'paid', payoutB: 'paid' },
    ]);
    expect(events.map((event) => event.at)).toEqual([1, 2, 4, 5, 6, 7].map(at));
    expect((await listWithdrawalEvents(db, id, events[3]?.seq)).map((e) => e.seq)).toEqual(
      events.slice(4).map((e) => e.seq),
    );
  });

  it('starts a withdrawal with a side that pays nothing as paying', async () => {
    const db = await storeBefore0018();
    await migrate(db);
    await recordWithdrawal(db, 'wdr_oneside00000001', '0');
    expect(shapeOf(await listWithdrawalEvents(db, 'wdr_oneside00000001'))).toEqual([
      { status: 'paying', legEvent: null, side: null, payoutA: 'pending', payoutB: 'none' },
    ]);
  });
});
