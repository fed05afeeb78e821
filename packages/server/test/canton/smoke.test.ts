/**
 * Smoke test against a real Canton participant (LocalNet or a DevNet validator), through the
 * adapter with the service's own settings: ledger end, a party, its holdings, the instruments and
 * the open mining round. It runs with `CANTON_SMOKE=1` and the `CANTON_*` settings of
 * docs/canton.md, plus `CANTON_SMOKE_PARTY`, a party the user may read (a pool's swap party):
 *
 *   CANTON_SMOKE=1 CANTON_LEDGER_API_URL=http://localhost:2975 \
 *   CANTON_SCAN_PROXY_URL=http://localhost:2000/api/validator \
 *   CANTON_REGISTRY_URL=http://localhost:2000/api/validator/v0/scan-proxy \
 *   CANTON_USER_ID=poolparty CANTON_AUTH_SECRET=unsafe \
 *   CANTON_AUTH_AUDIENCE=https://canton.network.global CANTON_SMOKE_PARTY=… \
 *   npx vitest run packages/server/test/canton/smoke.test.ts
 *
 * Without them it is skipped, and says why.
 */
import { Amount } from '@poolparty/core';
import { type CantonLedger, openCantonLedger } from '@poolparty/ledger';
import { afterAll, describe, expect, it } from 'vitest';
import { cantonLedgerOptionsOf } from '../../src/canton-options.js';
import { type LedgerLocation, readLedgerLocation } from '../../src/config.js';

function smokeSetup(): { location: LedgerLocation; party: string } | string {
  if (process.env.CANTON_SMOKE !== '1') return 'CANTON_SMOKE is not 1';
  const party = process.env.CANTON_SMOKE_PARTY;
  if (party === undefined || party === '') return 'CANTON_SMOKE_PARTY is not set';
  const read = readLedgerLocation({ ...process.env, LEDGER: 'canton' });
  if (!read.ok) return read.errors.join('; ');
  return { location: read.settings, party };
}

const setup = smokeSetup();
if (typeof setup === 'string') console.log(`canton smoke test skipped: ${setup}`);

describe.skipIf(typeof setup === 'string')('a real Canton participant, through the adapter', () => {
  let ledger: CantonLedger | null = null;
  afterAll(async () => {
    await ledger?.close();
  });

  it('reads the ledger end, a party, its holdings, the instruments and the open mining round', async () => {
    if (typeof setup === 'string') throw new Error(setup);
    ledger = await openCantonLedger(cantonLedgerOptionsOf(setup.location));

    const end = await ledger.ledgerEnd();
    expect(Number.isSafeInteger(end) && end > 0).toBe(true);
    expect(await ledger.getParty(setup.party)).toMatchObject({ partyId: setup.party });
    const holdings = await ledger.getHoldings(setup.party);
    for (const holding of holdings) {
      expect(holding.owner).toBe(setup.party);
      expect(holding.amount.units > 0n).toBe(true);
    }
    const instruments = await ledger.listInstruments();
    expect(instruments.some((instrument) => instrument.id === 'Amulet')).toBe(true);
    const round = await ledger.openMiningRound();
    expect(round.round).toBeGreaterThanOrEqual(0);
    expect(Amount.parse(round.amuletPriceUsd.toString()).units > 0n).toBe(true);
    expect(round.opensAt.getTime()).toBeLessThanOrEqual(Date.now() + 60_000);
    console.log(
      `canton smoke: ledger end ${end}, ${holdings.length} holdings of ${setup.party}, ` +
        `${instruments.length} instruments, mining round ${round.round} at ${round.amuletPriceUsd} USD/CC`,
    );
  });
});
