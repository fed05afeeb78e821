/**
 * Deposits to an LP party nobody asked for, through the whole service on PostgreSQL, on both
 * ledger adapters: the embedded devnet ledger (`LEDGER=local`) and a participant
 * (`LEDGER=canton`, the devnet ledger server). A stray offer is rejected and the next swap
 * completes; every unasked kind goes back whole, nothing is lost or flagged, the books equal the
 * swap party's holdings and the LP party holds nothing (docs/spec/liquidity.md#unasked-deposits).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Amount, type Instrument } from '@poolparty/core';
import type { LocalLedger } from '@poolparty/ledger';
import {
  createPricedIntent,
  depositFor,
  expectConserved,
  ingestedUpTo,
  registerApiKey,
  runUnaskedDeposits,
  waitFor,
} from '@poolparty/settlement/testing';
import { getIntent, getPool } from '@poolparty/store';
import { createSchema, dropSchema, postgresSkipReason, schemaUrl } from '@poolparty/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSettings } from '../src/config.js';
import { type RunningService, startService } from '../src/service.js';
import {
  importDevnetPools,
  type ServedDevnet,
  serveSeededDevnet,
} from './support/devnet-ledger.js';

const POOL = 'amulet-usdcx';
const skipReason = await postgresSkipReason('unasked liquidity deposits on both ledgers');

/** A running service on a fresh PostgreSQL schema, and the ledger its wallets use. */
interface Deployment {
  readonly service: RunningService;
  readonly ledger: LocalLedger;
  readonly instruments: {
    readonly amulet: Instrument;
    readonly usdcx: Instrument;
    readonly cbtc: Instrument;
  };
  readonly developerParty: string;
  readonly userParty: string;
  /** Moves the ledger's time on and lets the service see it. */
  advanceClock(ms: number): Promise<void>;
  close(): Promise<void>;
}

async function startOn(ledgerKind: 'local' | 'canton'): Promise<Deployment> {
  const schema = await createSchema(`pp_unasked_${ledgerKind}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'pp-unasked-'));
  const devnet: ServedDevnet | null = ledgerKind === 'canton' ? await serveSeededDevnet() : null;
  const settings = readSettings({
    PORT: '0',
    LOG_LEVEL: 'silent',
    POOLPARTY_DATA_DIR: dataDir,
    DATABASE_URL: schemaUrl(schema),
    ...devnet?.env,
  });
  if (!settings.ok) throw new Error(settings.errors.join('\n'));
  const service = await startService(settings.settings);
  if (devnet !== null) await importDevnetPools(service, devnet);
  const ledger = devnet?.ledger ?? service.ctx.devnetLedger;
  if (!ledger) throw new Error('no ledger to send deposits on');
  const parties = await seededParties(service, devnet);
  return {
    service,
    ledger,
    ...parties,
    advanceClock: async (ms) => {
      await ledger.advanceClock(ms);
      // A participant's time is that of its latest update: one carries the new time.
      await ledger.mint({
        owner: parties.developerParty,
        instrument: parties.instruments.amulet,
        amount: Amount.parse('1'),
      });
      await service.ctx.clock.sync?.();
    },
    close: async () => {
      await service.close();
      await devnet?.close();
      rmSync(dataDir, { recursive: true, force: true });
      await dropSchema(schema);
    },
  };
}

/** The seed's instruments and parties: the devnet ledger server's, or the service's own. */
async function seededParties(service: RunningService, devnet: ServedDevnet | null) {
  if (devnet !== null) {
    const [user] = devnet.seed.users;
    if (!user) throw new Error('no seeded user');
    return {
      instruments: devnet.seed.instruments,
      developerParty: devnet.seed.developer.partyId,
      userParty: user.partyId,
    };
  }
  const welcome = service.devnet;
  const usdcxPool = welcome?.pools.find((p) => p.poolId === POOL);
  const cbtcPool = welcome?.pools.find((p) => p.poolId === 'amulet-cbtc');
  const [user] = welcome?.users ?? [];
  if (!welcome || !usdcxPool || !cbtcPool || !user) throw new Error('no devnet seed');
  return {
    instruments: { amulet: usdcxPool.tokenA, usdcx: usdcxPool.tokenB, cbtc: cbtcPool.tokenB },
    developerParty: welcome.developer.partyId,
    userParty: user.partyId,
  };
}

/** Resolves once the service has ingested every update so far that names the pool's parties. */
async function caughtUp(d: Deployment): Promise<void> {
  const pool = await getPool(d.service.ctx.db, POOL);
  if (pool === null) throw new Error(`no pool ${POOL}`);
  await ingestedUpTo(d.service.ctx.db, d.ledger, [pool.swapParty, pool.lpParty]);
}

for (const ledgerKind of ['local', 'canton'] as const) {
  describe.skipIf(skipReason !== null)(`on PostgreSQL with LEDGER=${ledgerKind}`, () => {
    let d: Deployment;

    beforeAll(async () => {
      d = await startOn(ledgerKind);
      await registerApiKey(d.service.ctx.db, d.developerParty, new Date());
    }, 60_000);

    afterAll(async () => {
      await d?.close();
    });

    it('rejects a stray offer to the LP party, and the next swap completes', async () => {
      const { db } = d.service.ctx;
      const pool = await getPool(db, POOL);
      if (pool === null) throw new Error('no pool');
      const { partyId: stranger } = await d.ledger.createParty({
        hint: 'stray',
        preapprovals: [d.instruments.amulet],
      });
      await d.ledger.mint({
        owner: stranger,
        instrument: d.instruments.usdcx,
        amount: Amount.parse('5'),
      });
      await d.ledger.submitTransfer({
        commandId: `stray-${ledgerKind}`,
        sender: stranger,
        receiver: pool.lpParty,
        instrument: d.instruments.usdcx,
        amount: Amount.parse('1'),
        meta: {},
      });
      const intent = await createPricedIntent(db, d.service.ctx.ledger, {
        poolId: POOL,
        party: d.userParty,
        input: d.instruments.amulet,
        amount: '100',
        developerParty: d.developerParty,
        now: d.service.ctx.clock.now(),
      });
      await depositFor(d.ledger, intent, d.instruments.amulet);
      const done = await waitFor(async () => {
        const current = await getIntent(db, intent.intentId);
        return current?.status === 'completed' || current?.status === 'failed' ? current : null;
      }, 'the swap after the stray offer to settle');
      expect(done.status).toBe('completed');
      await waitFor(async () => {
        const holdings = await d.ledger.getHoldings(stranger);
        const usdcx = holdings.filter((h) => h.instrument.id === 'USDCx');
        return Amount.sum(usdcx.map((h) => h.amount)).toString() === '5' || null;
      }, 'the stray offer to be back with its sender');
      // Handled, not set aside: nothing for an operator, and the deposit is recorded returned.
      await caughtUp(d);
      expect(await db.query('SELECT kind FROM operator_flags')).toEqual([]);
      const deposits = await db.query<{ status: string; unmatched_reason: string }>(
        'SELECT status, unmatched_reason FROM liquidity_deposits WHERE sender = $1',
        [stranger],
      );
      expect(deposits).toEqual([{ status: 'returned', unmatched_reason: 'no_intent' }]);
    });

    it('returns every kind of unasked deposit, and conserves every instrument', async () => {
      const outcome = await runUnaskedDeposits({
        db: d.service.ctx.db,
        ledger: d.ledger,
        poolId: POOL,
        instruments: d.instruments,
        developerParty: d.developerParty,
        caughtUp: () => caughtUp(d),
        advanceClock: (ms) => d.advanceClock(ms),
        now: () => d.service.ctx.clock.now(),
      });
      expectConserved(outcome);
    });
  });
}
