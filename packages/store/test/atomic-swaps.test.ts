/**
 * Atomic swaps in the store, on PGlite and PostgreSQL: a prepared swap reserves the pool's
 * holdings its output leg names, no holding is ever reserved by two live swaps, and a swap
 * that ends — completed, expired, cancelled, refused — releases its reservation whichever
 * statement ends it. A spent input prepares the swap again under a new command id. A trader's
 * list holds its atomic swaps beside its swap intents, in one order under one cursor.
 */
import { Amount, IllegalPathError } from '@poolparty/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cancelIntent,
  type Database,
  decodeIntentCursor,
  dueAtomicSwaps,
  encodeIntentCursor,
  executingAtomicSwaps,
  getAtomicSwap,
  getAtomicSwapForParty,
  HoldingReservedError,
  IN_MEMORY,
  type IntentCursor,
  insertAtomicSwap,
  insertIntent,
  listAtomicSwapEvents,
  listSwapsForParty,
  migrate,
  openPglite,
  openPostgres,
  type PartySwap,
  type PartySwapPage,
  type PartySwapQuery,
  reprepareAtomicSwap,
  reservationsOf,
  reservedHoldingIds,
  transitionAtomicSwap,
} from '../src/index.js';
import {
  createSchema,
  dropSchema,
  POSTGRES_URL,
  postgresSkipReason,
  seedIntentWorld,
  testAtomicSwap,
  testIntent,
} from '../testing/index.js';

const T0 = new Date('2026-03-01T10:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const SIGNATURE = { signature: 'c2lnbmF0dXJl', publicKey: 'a2V5' };
const postgresSkip = await postgresSkipReason('atomic swaps on PostgreSQL');

interface Backend {
  readonly name: string;
  readonly skip: string | null;
  open(): Promise<{ db: Database; dispose(): Promise<void> }>;
}

const BACKENDS: readonly Backend[] = [
  {
    name: 'PGlite',
    skip: null,
    open: async () => {
      const db = await openPglite(IN_MEMORY);
      return { db, dispose: () => db.close() };
    },
  },
  {
    name: 'PostgreSQL',
    skip: postgresSkip,
    open: async () => {
      const schema = await createSchema('pp_atomic');
      const db = openPostgres(POSTGRES_URL, { schema });
      return {
        db,
        dispose: async () => {
          await db.close();
          await dropSchema(schema);
        },
      };
    },
  },
];

describe.each(BACKENDS)('atomic swaps on $name', (backend) => {
  if (backend.skip !== null) {
    it.skip(`skipped: ${backend.skip}`, () => {});
    return;
  }
  let db: Database;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    ({ db, dispose } = await backend.open());
    await migrate(db);
    await seedIntentWorld(db, T0);
  });

  afterAll(() => dispose?.());

  function prepared(id: string, outputHoldingIds: readonly string[]) {
    const swap = testAtomicSwap({ atomicSwapId: id, createdAt: T0 });
    return insertAtomicSwap(db, {
      ...swap,
      preparation: { ...swap.preparation, outputHoldingIds },
    });
  }

  it('keeps what was prepared, readable by its trader only, with its first event', async () => {
    const swap = await prepared('atm_read', ['h-read-1', 'h-read-2']);
    expect(swap).toMatchObject({
      status: 'prepared',
      preparations: 1,
      inputAmount: Amount.parse('100'),
      outputAmount: Amount.parse('13.585'),
      signature: null,
      execution: null,
    });
    expect(await getAtomicSwap(db, 'atm_read')).toEqual(swap);
    expect(await getAtomicSwapForParty(db, 'atm_read', 'alice::1220')).toEqual(swap);
    expect(await getAtomicSwapForParty(db, 'atm_read', 'mallory::1220')).toBeNull();
    expect(await reservationsOf(db, 'atm_read')).toEqual(['h-read-1', 'h-read-2']);
    const events = await listAtomicSwapEvents(db, 'atm_read');
    expect(events.map((event) => event.status)).toEqual(['prepared']);
  });

  it('never lets two live swaps name one holding: the second is refused and not written', async () => {
    await prepared('atm_first', ['h-shared', 'h-first']);
    await expect(prepared('atm_second', ['h-second', 'h-shared'])).rejects.toBeInstanceOf(
      HoldingReservedError,
    );
    expect(await getAtomicSwap(db, 'atm_second')).toBeNull();
    expect(await reservationsOf(db, 'atm_second')).toEqual([]);
    const reserved = await reservedHoldingIds(db, 'pool-1');
    expect(reserved.has('h-shared') && reserved.has('h-first')).toBe(true);
    expect(reserved.has('h-second')).toBe(false);
  });

  it.each([
    ['expired', ['prepared']],
    ['cancelled', ['prepared']],
    ['completed', ['prepared', 'executing']],
    ['price_moved', ['prepared', 'executing']],
    ['rejected', ['prepared', 'executing']],
  ] as const)('releases the reservation when the swap ends %s', async (end, path) => {
    const id = `atm_end_${end}`;
    await prepared(id, [`h-${end}`]);
    let from: 'prepared' | 'executing' = 'prepared';
    for (const to of [...path.slice(1), end]) {
      const moved = await transitionAtomicSwap(db, {
        atomicSwapId: id,
        from: [from],
        to,
        at: at(1_000),
        ...(to === 'executing' && { signature: SIGNATURE }),
        ...(to === 'completed' && {
          execution: {
            updateId: 'upd-1',
            curveOutput: Amount.parse('14'),
            excess: Amount.parse('0.415'),
            reservesBefore: null,
          },
        }),
      });
      expect(moved?.status).toBe(to);
      if (to === 'executing') expect(await reservationsOf(db, id)).toEqual([`h-${end}`]);
      from = 'executing';
    }
    expect(await reservationsOf(db, id)).toEqual([]);
    // The holding is free for the next swap.
    await expect(prepared(`${id}_next`, [`h-${end}`])).resolves.toMatchObject({
      status: 'prepared',
    });
  });

  it('records the signature with executing and the execution with completed', async () => {
    await prepared('atm_done', ['h-done']);
    const executing = await transitionAtomicSwap(db, {
      atomicSwapId: 'atm_done',
      from: ['prepared'],
      to: 'executing',
      at: at(2_000),
      signature: SIGNATURE,
    });
    expect(executing).toMatchObject({ signature: SIGNATURE, signedAt: at(2_000) });
    expect((await executingAtomicSwaps(db)).map((s) => s.atomicSwapId)).toContain('atm_done');
    const execution = {
      updateId: 'upd-done',
      curveOutput: Amount.parse('14.1'),
      excess: Amount.parse('0.515'),
      // The reserves the curve's output was computed from, kept with it.
      reservesBefore: { input: Amount.parse('1000'), output: Amount.parse('150') },
    };
    const done = await transitionAtomicSwap(db, {
      atomicSwapId: 'atm_done',
      from: ['executing'],
      to: 'completed',
      at: at(3_000),
      execution,
    });
    expect(done).toMatchObject({ status: 'completed', execution, completedAt: at(3_000) });
    // A second writer finds it moved already.
    expect(
      await transitionAtomicSwap(db, {
        atomicSwapId: 'atm_done',
        from: ['executing'],
        to: 'completed',
        at: at(4_000),
        execution,
      }),
    ).toBeNull();
    const events = await listAtomicSwapEvents(db, 'atm_done');
    expect(events.map((event) => event.status)).toEqual(['prepared', 'executing', 'completed']);
  });

  it('refuses a move that is not the lifecycle’s before writing anything', async () => {
    await prepared('atm_illegal', ['h-illegal']);
    await expect(
      transitionAtomicSwap(db, {
        atomicSwapId: 'atm_illegal',
        from: ['prepared'],
        to: 'completed',
        at: at(1_000),
      }),
    ).rejects.toBeInstanceOf(IllegalPathError);
    expect((await getAtomicSwap(db, 'atm_illegal'))?.status).toBe('prepared');
  });

  it('prepares a swap again under a new command id, its new holdings reserved in place of the old', async () => {
    await prepared('atm_again', ['h-again-old']);
    await transitionAtomicSwap(db, {
      atomicSwapId: 'atm_again',
      from: ['prepared'],
      to: 'executing',
      at: at(1_000),
      signature: SIGNATURE,
    });
    const preparation = {
      commandId: 'atomic-atm_again-2',
      inputHoldingIds: ['trader-holding-atm_again'],
      outputHoldingIds: ['h-again-new'],
      preparedTransaction: 'bmV3',
      preparedTransactionHash: 'bmV3aGFzaA==',
      hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
      expiresAt: at(61_000),
    };
    const again = await reprepareAtomicSwap(db, 'atm_again', preparation, at(1_500));
    expect(again).toMatchObject({ status: 'prepared', preparations: 2 });
    expect(again?.preparation).toEqual(preparation);
    expect(await reservationsOf(db, 'atm_again')).toEqual(['h-again-new']);
    // Only an executing swap is prepared again.
    expect(await reprepareAtomicSwap(db, 'atm_again', preparation, at(1_600))).toBeNull();
  });

  it('answers the prepared swaps due at a time, for the expiry sweep', async () => {
    await prepared('atm_due', ['h-due']);
    const due = (await dueAtomicSwaps(db, at(60_000))).map((swap) => swap.atomicSwapId);
    expect(due).toContain('atm_due');
    expect(await dueAtomicSwaps(db, at(59_999))).toEqual([]);
  });

  it("lists a trader's swaps of both kinds newest first, each once, under one cursor", async () => {
    const trader = 'carol::1220';
    const made: { id: string; t: number }[] = [];
    for (let i = 0; i < 7; i++) {
      // Pairs share a creation time across the kinds, so the order falls back on the id.
      const createdAt = at(Math.floor(i / 2) * 1000);
      if (i % 2 === 0) {
        const id = `swp_party${i}`;
        const intent = testIntent({
          intentId: id,
          poolId: 'pool-1',
          apiKeyId: 'key_1',
          developerParty: 'dev::1220',
          walletParty: trader,
          depositAddress: 'swap::1220cc',
          depositReference: `pp-party${i}`,
          createdAt,
        });
        await insertIntent(db, intent);
        // One pending intent per party, pool and input: each is cancelled before the next.
        await cancelIntent(db, { intentId: id, walletParty: trader, now: at(5_000) });
      } else {
        const swap = testAtomicSwap({ atomicSwapId: `atm_party${i}`, createdAt });
        await insertAtomicSwap(db, { ...swap, traderParty: trader });
      }
      made.push({ id: i % 2 === 0 ? `swp_party${i}` : `atm_party${i}`, t: createdAt.getTime() });
    }
    const idOf = (swap: PartySwap) =>
      swap.kind === 'deposit' ? swap.intent.intentId : swap.swap.atomicSwapId;
    const seen: string[] = [];
    let cursor: IntentCursor | null = null;
    let pages = 0;
    do {
      const page: PartySwapPage = await listSwapsForParty(db, {
        walletParty: trader,
        limit: 3,
        cursor,
      });
      seen.push(...page.swaps.map(idOf));
      cursor = page.nextCursor && decodeIntentCursor(encodeIntentCursor(page.nextCursor));
      pages += 1;
    } while (cursor !== null && pages < 10);
    const newestFirst = [...made].sort((a, b) => b.t - a.t || (a.id < b.id ? 1 : -1));
    expect(seen).toEqual(newestFirst.map((swap) => swap.id));
    expect(pages).toBe(3);

    const only = async (query: Partial<PartySwapQuery>) =>
      (await listSwapsForParty(db, { walletParty: trader, limit: 10, ...query })).swaps.map(idOf);
    expect(await only({ kinds: ['atomic'] })).toEqual(['atm_party5', 'atm_party3', 'atm_party1']);
    expect(await only({ kinds: ['deposit'], statuses: ['cancelled'] })).toEqual([
      'swp_party6',
      'swp_party4',
      'swp_party2',
      'swp_party0',
    ]);
    expect(await only({ statuses: ['prepared'] })).toEqual([
      'atm_party5',
      'atm_party3',
      'atm_party1',
    ]);
    expect(await only({ developerParty: 'other::1220' })).toEqual([]);
    expect(await only({ walletParty: 'alice::1220', kinds: ['deposit'] })).toEqual([]);
  });
});
