/**
 * Status and track cost as intents pile up, on PostgreSQL: for each size, a fresh schema (dropped
 * afterwards) gets one real intent created as `POST /v1/swaps` would, then cloned with
 * `generate_series` (each clone completed, with its `completed` event, ten per wallet party).
 * Then the store queries behind `GET /v1/swaps/{intentId}` (the party's intent with its events,
 * one statement) and `GET /v1/track/{partyId}` (the party's first page and its histories) are
 * timed for random intents and parties, the sizes taken in turns. HTTP, auth and JSON cost the
 * same at every size and are left out.
 */

import { TRACK_LIMIT_DEFAULT } from '@poolparty/core';
import { type LocalLedger, openLocalLedger, seedDevnet } from '@poolparty/ledger';
import { createPricedIntent, fundedParties, registerSeed } from '@poolparty/settlement/testing';
import {
  type Database,
  getIntentWithEventsForParty,
  listIntentHistories,
  listSwapsForParty,
} from '@poolparty/store';
import { type FreshSchema, openFreshSchema, postgresSkipReason } from '@poolparty/store/testing';
import { isMain, percentile, table } from './report.js';
import { flatWithin } from './targets.js';

export const INTENT_COUNTS = [10_000, 100_000, 1_000_000] as const;
export const QUICK_INTENT_COUNTS = [1_000, 10_000, 100_000] as const;
export const INTENTS_PER_PARTY = 10;
export const FLAT_FACTOR = 2;
/**
 * Samples per size. A p99 of a few hundred sub-millisecond samples rests on its three slowest,
 * which one GC pause or scheduler hiccup decides; two thousand put it on twenty.
 */
const SAMPLES = 2_000;
/** Unmeasured samples first at each size: plan cache, buffer cache and JIT warm. */
const WARM_UP_SAMPLES = 200;
/** The samples are taken in this many rounds, each visiting every size in turn. */
const SAMPLE_ROUNDS = 10;
/** Rows cloned per statement: big enough to be quick, small enough not to hold one huge txn. */
const CLONE_CHUNK = 100_000;

export interface IntentsPoint {
  readonly intents: number;
  readonly statusP50Ms: number;
  readonly statusP99Ms: number;
  readonly trackP50Ms: number;
  readonly trackP99Ms: number;
  /** Seconds spent filling this size's store (set-up, shown for scale). */
  readonly fillS: number;
}

export interface IntentsBench {
  readonly points: readonly IntentsPoint[];
  readonly skipped: string | null;
  /** Status p99 within 2× from the smallest to the largest size. */
  readonly statusFlat: boolean;
}

const CLONE_SQL = `
  INSERT INTO intents
  SELECT clone.*
  FROM intents i, generate_series($2::int, $3::int) g,
  -- In FROM, not as (f(...)).* in the select list, which would call it once per column.
  LATERAL jsonb_populate_record(NULL::intents, to_jsonb(i) || jsonb_build_object(
    'intent_id', 'swp_bench' || g,
    'deposit_reference', 'pp-bench-' || g,
    'wallet_party', 'bench-party-' || (g / ${INTENTS_PER_PARTY}),
    'status', 'completed',
    'created_at', i.created_at + g * interval '1 millisecond'
  )) clone
  WHERE i.intent_id = $1`;

const EVENTS_SQL = `
  INSERT INTO intent_events (intent_id, status, at)
  SELECT 'swp_bench' || g, 'completed', now() FROM generate_series($1::int, $2::int) g`;

/**
 * Writes the fill's dirty pages out now (a checkpoint), so the background writer does not do it
 * while samples are taken. Needs superuser or pg_checkpoint; without, the run goes on as is.
 */
async function flushDirtyPages(db: Database): Promise<void> {
  try {
    await db.query('CHECKPOINT');
  } catch {
    // Not allowed for this role: the figures may then include the background flush.
  }
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

/** A store holding `count` intents, filled and settled before anything is timed. */
interface FilledStore {
  readonly count: number;
  readonly fresh: FreshSchema;
  readonly db: Database;
  readonly developerParty: string;
  readonly fillS: number;
}

async function fillStore(
  ledger: LocalLedger,
  seed: Awaited<ReturnType<typeof seedDevnet>>,
  party: string,
  count: number,
): Promise<FilledStore> {
  const fillStart = performance.now();
  const fresh = await openFreshSchema(`pp_bench_intents_${count}`);
  const db = fresh.databases[0] as Database;
  try {
    const now = new Date();
    await registerSeed(db, seed, now);
    const base = await createPricedIntent(db, ledger, {
      poolId: 'amulet-usdcx',
      party,
      input: seed.instruments.amulet,
      amount: '50',
      developerParty: seed.developer.partyId,
      now,
    });
    // Synthetic history wakes no one: without this, each cloned event sends a NOTIFY, and one
    // transaction's queue of a hundred thousand of them costs minutes to commit.
    await db.query('ALTER TABLE intent_events DISABLE TRIGGER intent_events_notify');
    for (let from = 1; from <= count; from += CLONE_CHUNK) {
      const to = Math.min(count, from + CLONE_CHUNK - 1);
      await db.query(CLONE_SQL, [base.intentId, from, to]);
      await db.query(EVENTS_SQL, [from, to]);
    }
    // VACUUM as well as ANALYZE: a table that has just taken a million rows is otherwise
    // vacuumed by autovacuum while it is measured, which a live store has long done by then.
    await db.query('VACUUM ANALYZE intents');
    await db.query('VACUUM ANALYZE intent_events');
    await flushDirtyPages(db);
  } catch (error) {
    await fresh.close();
    throw error;
  }
  const fillS = (performance.now() - fillStart) / 1000;
  return { count, fresh, db, developerParty: seed.developer.partyId, fillS };
}

interface Samples {
  readonly status: number[];
  readonly track: number[];
}

/** Times `n` status reads and `n` track reads of random intents and parties of `store`. */
async function sample(store: FilledStore, n: number, into: Samples | null): Promise<void> {
  const { db, count } = store;
  for (let i = 0; i < n; i++) {
    const g = 1 + Math.floor(Math.random() * count);
    const walletParty = `bench-party-${Math.floor(g / INTENTS_PER_PARTY)}`;
    const statusMs = await timed(async () => {
      const found = await getIntentWithEventsForParty(db, `swp_bench${g}`, walletParty);
      if (found === null) throw new Error(`swp_bench${g} not found`);
    });
    const trackMs = await timed(async () => {
      const page = await listSwapsForParty(db, {
        walletParty,
        developerParty: store.developerParty,
        limit: TRACK_LIMIT_DEFAULT,
        cursor: null,
      });
      if (page.swaps.length === 0) throw new Error(`${walletParty} has no intents`);
      await listIntentHistories(
        db,
        page.swaps.flatMap((swap) => (swap.kind === 'deposit' ? [swap.intent.intentId] : [])),
      );
    });
    into?.status.push(statusMs);
    into?.track.push(trackMs);
  }
}

export async function benchIntentsScale(
  counts: readonly number[] = INTENT_COUNTS,
): Promise<IntentsBench> {
  const skipped = await postgresSkipReason('intents-scale bench');
  if (skipped !== null) return { points: [], skipped, statusFlat: false };
  const stores: FilledStore[] = [];
  const ledger = await openLocalLedger({});
  try {
    const seed = await seedDevnet(ledger);
    const { amulet, usdcx } = seed.instruments;
    const [party] = await fundedParties(ledger, 1, [amulet, usdcx], amulet, '100');
    for (const count of counts) stores.push(await fillStore(ledger, seed, party as string, count));
    const measured = stores.map((store) => ({
      store,
      status: [] as number[],
      track: [] as number[],
    }));
    for (const store of stores) await sample(store, WARM_UP_SAMPLES, null);
    // Every size a slice per round, so a busy moment of the machine falls on all sizes alike.
    for (let round = 0; round < SAMPLE_ROUNDS; round++) {
      for (const taken of measured) await sample(taken.store, SAMPLES / SAMPLE_ROUNDS, taken);
    }
    const points = measured.map(
      ({ store, status, track }): IntentsPoint => ({
        intents: store.count,
        statusP50Ms: percentile(status, 50),
        statusP99Ms: percentile(status, 99),
        trackP50Ms: percentile(track, 50),
        trackP99Ms: percentile(track, 99),
        fillS: store.fillS,
      }),
    );
    const statusFlat = flatWithin(
      points.map((p) => p.statusP99Ms),
      FLAT_FACTOR,
    );
    return { points, skipped: null, statusFlat };
  } finally {
    await ledger.close();
    for (const store of stores) {
      await store.fresh.close();
    }
  }
}

export function printIntentsBench(result: IntentsBench): void {
  console.log(
    `status and track vs intents stored (PostgreSQL, ${INTENTS_PER_PARTY} intents per party, ${SAMPLES} samples each after ${WARM_UP_SAMPLES} unmeasured)`,
  );
  if (result.skipped !== null) {
    console.log(`  skipped: ${result.skipped}`);
    return;
  }
  const ms = (n: number) => n.toFixed(2);
  console.log(
    table([
      ['  intents', 'status p50 ms', 'status p99 ms', 'track p50 ms', 'track p99 ms', 'fill s'],
      ...result.points.map((p) => [
        `  ${p.intents}`,
        ms(p.statusP50Ms),
        ms(p.statusP99Ms),
        ms(p.trackP50Ms),
        ms(p.trackP99Ms),
        p.fillS.toFixed(1),
      ]),
    ]),
  );
}

if (isMain(import.meta.url)) {
  const quick = process.argv.includes('--quick');
  printIntentsBench(await benchIntentsScale(quick ? QUICK_INTENT_COUNTS : INTENT_COUNTS));
}
