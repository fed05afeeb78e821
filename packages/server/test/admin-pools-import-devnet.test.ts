/**
 * `poolparty admin pools import-devnet`: a service on the devnet ledger server (`LEDGER=canton`)
 * registers the pools the server seeded — listed at `/devnet/pools`, reserves read from each swap
 * party's holdings through the Canton adapter — and importing again changes nothing.
 */
import { Amount } from '@poolparty/core';
import {
  type Database,
  IN_MEMORY,
  listAdminActions,
  listPools,
  migrate,
  openPglite,
} from '@poolparty/store';
import { recordedAmount } from '@poolparty/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLedgerLocation } from '../src/config.js';
import { type LedgerConnection, openLedgerConnection } from '../src/ledger-connection.js';
import { runAdmin } from './support/admin.js';
import { type ServedDevnet, serveSeededDevnet } from './support/devnet-ledger.js';

let devnet: ServedDevnet;
let db: Database;
let connection: LedgerConnection;

beforeAll(async () => {
  devnet = await serveSeededDevnet();
  db = await openPglite(IN_MEMORY);
  await migrate(db);
  const location = readLedgerLocation(devnet.env);
  if (!location.ok) throw new Error(location.errors.join('\n'));
  connection = await openLedgerConnection({ ...location.settings, dataDir: '/nonexistent' });
});

afterAll(async () => {
  await connection?.close();
  await db?.close();
  await devnet?.close();
});

function admin(...args: string[]) {
  return runAdmin(
    db,
    {
      openLedger: async () => ({ ledger: connection.ledger, close: async () => {} }),
      ledgerApiUrl: () => devnet.server.ledgerApiUrl,
      now: () => new Date(),
      actor: () => 'ops',
    },
    args,
  );
}

describe('admin pools import-devnet', () => {
  it('adds every seeded pool with the swap parties’ holdings as reserves, once', async () => {
    const first = await admin('pools', 'import-devnet');

    expect(first.errors).toEqual([]);
    expect(first.out.map((line) => line.split('\t')[0])).toEqual(
      devnet.seed.pools.map((pool) => `added ${pool.poolId}`),
    );
    const pools = await listPools(db);
    const end = await devnet.ledger.ledgerEnd();
    for (const seeded of devnet.seed.pools) {
      const pool = pools.find((p) => p.poolId === seeded.poolId);
      expect(pool).toMatchObject({
        tokenA: seeded.tokenA,
        tokenB: seeded.tokenB,
        swapParty: seeded.swapParty,
        lpParty: seeded.lpParty,
        feeBps: seeded.feeBps,
      });
      expect(recordedAmount(pool?.accounting.reserveA)).toEqual(seeded.reserves.tokenA);
      expect(recordedAmount(pool?.accounting.reserveB)).toEqual(seeded.reserves.tokenB);
      expect(pool?.booksFromOffset).toBe(end);
    }

    const again = await admin('pools', 'import-devnet', '--from', devnet.server.url);
    expect(again).toEqual({
      out: devnet.seed.pools.map((pool) => `${pool.poolId}\tin the store already`),
      errors: [],
    });
    const audit = await listAdminActions(db, 10);
    expect(audit.map((entry) => [entry.action, entry.subject])).toEqual(
      devnet.seed.pools.map((pool) => ['pools.add', pool.poolId]),
    );
  });

  it('names a server that lists no pools', async () => {
    const { errors } = await admin('pools', 'import-devnet', '--from', `${devnet.server.url}/v2`);
    expect(errors).toEqual([
      `${devnet.server.url}/v2/devnet/pools answered 404: is it a \`poolparty devnet-ledger\` server?`,
    ]);
  });
});
