/**
 * `npm run example:atomic` as a developer runs it: against a service with `LEDGER=canton` on the
 * devnet ledger server, the seeded user signs in, asks for an atomic swap, prints its legs and
 * expiry, verifies the transaction, signs it and prints the result — and the ledger moved exactly
 * the signed amounts, the pool's books still its holdings. On the embedded ledger, as
 * `npm start` runs it, it completes too.
 */
import { Amount, type Instrument } from '@poolparty/core';
import { balanceOf, booksAndHoldings } from '@poolparty/settlement/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service.js';
import {
  type CantonService,
  issueApiKey,
  type ServedDevnet,
  startCantonService,
} from '../support/devnet-ledger.js';
import { startTestService, type TestService } from '../support/service.js';
import { runExampleAs } from './support/example-run.js';

/** One example process: tsx compiles it and the SDK's sources, then one swap. */
const EXAMPLE_TIMEOUT_MS = 120_000;
const POOL_ID = 'amulet-usdcx';

describe('the atomic swap example on a service with LEDGER=canton', () => {
  let canton: CantonService;
  let devnet: ServedDevnet;
  let service: RunningService;
  let apiKey: string;

  beforeAll(async () => {
    canton = await startCantonService();
    ({ devnet, service } = canton);
    apiKey = await issueApiKey(service.ctx.db, devnet.seed.developer.partyId, new Date());
  }, 120_000);

  afterAll(() => canton?.close());

  it(
    'prints the legs and expiry, verifies, signs, and prints the update with what moved',
    async () => {
      const [user] = devnet.seed.users;
      const pool = devnet.seed.pools.find((p) => p.poolId === POOL_ID);
      if (user === undefined || pool === undefined) throw new Error('no seeded user and pool');
      const amulet = pool.tokenA as Instrument;
      const usdcx = pool.tokenB as Instrument;
      const before = {
        amulet: await balanceOf(devnet.ledger, user.partyId, amulet),
        usdcx: await balanceOf(devnet.ledger, user.partyId, usdcx),
      };
      const run = await runExampleAs('atomic', {
        url: service.url ?? '',
        apiKey,
        party: user,
        timeoutMs: EXAMPLE_TIMEOUT_MS,
      });
      const output = `${run.stdout}${run.stderr}`;
      expect(run.code, output).toBe(0);
      const lines = run.stdout.trim().split('\n');
      expect(lines[0]).toBe(`signed in as ${user.partyId}`);
      expect(run.stdout).toMatch(/^atomic swap atm_\w+, to sign before \S+Z:$/m);
      expect(run.stdout).toMatch(/^ {2}input leg: {2}you pay 100 Amulet to \S+::1220\w+$/m);
      expect(run.stdout).toMatch(/^ {2}output leg: you receive [\d.]+ USDCx \(quoted [\d.]+, /m);
      expect(run.stdout).toMatch(/^verified: the transaction debits you exactly 100\.0+ Amulet /m);
      const result =
        /^atomic: completed in update (\S+) — paid 100 Amulet, received ([\d.]+) USDCx; the pool kept ([\d.]+) USDCx of excess$/.exec(
          lines.at(-1) ?? '',
        );
      expect(result, output).not.toBeNull();
      // The ledger moved the signed amounts exactly, and the pool's books are its holdings.
      const received = Amount.parse(result?.[2] ?? '0');
      expect((await balanceOf(devnet.ledger, user.partyId, amulet)).toString()).toBe(
        before.amulet.sub(Amount.parse('100')).toString(),
      );
      expect((await balanceOf(devnet.ledger, user.partyId, usdcx)).toString()).toBe(
        before.usdcx.add(received).toString(),
      );
      const { books, holdings } = await booksAndHoldings(service.ctx.db, devnet.ledger, POOL_ID);
      expect(books).toEqual(holdings);
    },
    EXAMPLE_TIMEOUT_MS + 10_000,
  );
});

describe('the atomic swap example on the embedded ledger, as npm start runs it', () => {
  let t: TestService;

  beforeAll(async () => {
    t = await startTestService();
  });

  afterAll(() => t?.close());

  it(
    'completes, and the pool’s books are still its holdings',
    async () => {
      const [user] = t.users;
      if (user === undefined) throw new Error('no seeded user');
      const run = await runExampleAs('atomic', {
        url: t.url,
        apiKey: t.apiKey,
        party: user,
        timeoutMs: EXAMPLE_TIMEOUT_MS,
      });
      expect(run.code, `${run.stdout}${run.stderr}`).toBe(0);
      expect(run.stdout.trim().split('\n').at(-1)).toMatch(
        /^atomic: completed in update \S+ — paid 100 Amulet, /,
      );
      const ledger = t.service.ctx.ledger;
      const { books, holdings } = await booksAndHoldings(t.service.ctx.db, ledger, POOL_ID);
      expect(books).toEqual(holdings);
    },
    EXAMPLE_TIMEOUT_MS,
  );
});
