import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Amount, fingerprint } from '@poolparty/core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openLocalLedger } from '../src/index.js';
import type { LocalLedger } from '../src/local/control.js';
import {
  type HarnessLedger,
  ledgerConformanceSuite,
  publicKeyFor,
} from '../testing/conformance.js';

const dataDirs = new Map<HarnessLedger, string>();
const createdDirs: string[] = [];

afterAll(async () => {
  await Promise.all(createdDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

ledgerConformanceSuite({
  name: 'local, in memory',
  open: () => openLocalLedger({}),
  faults: true,
  soleWriter: true,
});

ledgerConformanceSuite({
  name: 'local, persisted',
  async open() {
    const dataDir = await mkdtemp(join(tmpdir(), 'poolparty-ledger-'));
    createdDirs.push(dataDir);
    const ledger = await openLocalLedger({ dataDir });
    dataDirs.set(ledger, dataDir);
    return ledger;
  },
  async reopen(previous) {
    const dataDir = dataDirs.get(previous);
    if (!dataDir) throw new Error('this ledger was not opened by the persisted harness');
    const ledger = await openLocalLedger({ dataDir });
    dataDirs.set(ledger, dataDir);
    return ledger;
  },
  faults: true,
  soleWriter: true,
});

describe('local ledger options', () => {
  const ledgers: LocalLedger[] = [];
  afterEach(async () => {
    await Promise.all(ledgers.splice(0).map((ledger) => ledger.close()));
  });
  async function open(options: Parameters<typeof openLocalLedger>[0]) {
    const ledger = await openLocalLedger(options);
    ledgers.push(ledger);
    return ledger;
  }

  it('internal parties live in the operator namespace', async () => {
    const operatorNamespace = fingerprint(publicKeyFor(42));
    const ledger = await open({ operatorNamespace });
    const { partyId } = await ledger.createParty({ hint: 'pool-swap' });
    expect(partyId).toBe(`pool-swap::${operatorNamespace}`);
  });

  it('the clock starts at startTime and the first round carries the configured price', async () => {
    const startTime = new Date('2030-01-01T00:00:00Z');
    const ledger = await open({ startTime, amuletPriceUsd: Amount.parse('0.25') });
    expect((await ledger.now()).getTime()).toBeGreaterThanOrEqual(startTime.getTime());
    const round = await ledger.openMiningRound();
    expect(round.amuletPriceUsd.toString()).toBe('0.25');
    expect(round.opensAt.getTime()).toBeGreaterThanOrEqual(startTime.getTime());
  });

  it('an offer without executeBefore lives for offerLifetimeMs', async () => {
    const offerLifetimeMs = 30 * 60_000;
    const ledger = await open({ offerLifetimeMs });
    const admin = (await ledger.createParty({ hint: 'registry' })).partyId;
    const instrument = { admin, id: 'CBTC' };
    await ledger.createInstrument(instrument);
    const sender = (await ledger.createParty({ hint: 'sender' })).partyId;
    const receiver = (await ledger.createParty({ hint: 'receiver' })).partyId;
    await ledger.mint({ owner: sender, instrument, amount: Amount.parse('1') });
    const before = await ledger.now();
    await ledger.submitTransfer({
      commandId: 'offer-1',
      sender,
      receiver,
      instrument,
      amount: Amount.parse('1'),
    });
    const after = await ledger.now();
    const [offer] = await ledger.getPendingOffers(receiver);
    const deadline = offer?.executeBefore.getTime() ?? 0;
    expect(deadline).toBeGreaterThanOrEqual(before.getTime() + offerLifetimeMs);
    expect(deadline).toBeLessThanOrEqual(after.getTime() + offerLifetimeMs);
  });
});
