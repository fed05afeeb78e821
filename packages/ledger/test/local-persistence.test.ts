import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ed25519 } from '@noble/curves/ed25519.js';
import { Amount, type Instrument } from '@poolparty/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  JOURNAL_FILE,
  JournalError,
  type LocalLedger,
  MINING_ROUND_MS,
  openLocalLedger,
} from '../src/index.js';

const dirs: string[] = [];
const ledgers: LocalLedger[] = [];

afterEach(async () => {
  await Promise.all(ledgers.splice(0).map((ledger) => ledger.close()));
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'poolparty-local-ledger-'));
  dirs.push(dir);
  return dir;
}

async function open(dir: string): Promise<LocalLedger> {
  const ledger = await openLocalLedger({ dataDir: dir });
  ledgers.push(ledger);
  return ledger;
}

const aliceKey = ed25519.getPublicKey(new Uint8Array(32).fill(7));
const rotatedKey = ed25519.getPublicKey(new Uint8Array(32).fill(8));

/** Builds a bit of everything that must survive a restart. */
async function populate(ledger: LocalLedger) {
  const admin = (await ledger.createParty({ hint: 'registry' })).partyId;
  const usdcx: Instrument = { admin, id: 'USDCx' };
  const amulet: Instrument = { admin, id: 'Amulet' };
  await ledger.createInstrument(usdcx);
  await ledger.createInstrument(amulet);
  const alice = (await ledger.createParty({ hint: 'alice', publicKey: aliceKey })).partyId;
  await ledger.addSigningKey(alice, rotatedKey);
  const pool = (await ledger.createParty({ hint: 'pool-swap', preapprovals: [amulet] })).partyId;
  await ledger.mint({ owner: alice, instrument: usdcx, amount: Amount.of(100), commandId: 'm1' });
  await ledger.mint({ owner: alice, instrument: amulet, amount: Amount.of(50) });
  const direct = { commandId: 't1', sender: alice, receiver: pool, instrument: amulet };
  await ledger.submitTransfer({ ...direct, amount: Amount.of(20) });
  const offer = { commandId: 't2', sender: alice, receiver: pool, instrument: usdcx };
  await ledger.submitTransfer({ ...offer, amount: Amount.parse('12.5') });
  await ledger.advanceClock(MINING_ROUND_MS);
  await ledger.setAmuletPrice(Amount.parse('0.2'));
  return { alice, pool, usdcx, amulet, offer };
}

async function snapshot(ledger: LocalLedger, parties: readonly string[]) {
  return {
    end: await ledger.ledgerEnd(),
    instruments: await ledger.listInstruments(),
    round: await ledger.openMiningRound(),
    holdings: await Promise.all(parties.map((p) => ledger.getHoldings(p))),
    offers: await Promise.all(parties.map((p) => ledger.getPendingOffers(p))),
    parties: await Promise.all(parties.map((p) => ledger.getParty(p))),
    completion: await ledger.lookupCommand('t2'),
  };
}

describe('local ledger persistence', () => {
  it('a reopened ledger has the same state, keys, completions and clock', async () => {
    const dir = await dataDir();
    const first = await open(dir);
    const { alice, pool, usdcx, offer } = await populate(first);
    const before = await snapshot(first, [alice, pool]);
    const timeBefore = await first.now();
    await first.close();

    const second = await open(dir);
    expect(await snapshot(second, [alice, pool])).toEqual(before);
    expect(await second.isSigningKeyOf(alice, aliceKey)).toBe(true);
    expect(await second.isSigningKeyOf(alice, rotatedKey)).toBe(true);
    expect((await second.now()).getTime()).toBeGreaterThanOrEqual(timeBefore.getTime());
    // Internal parties keep the persisted operator namespace.
    expect((await second.createParty({ hint: 'pool-swap' })).partyId).toBe(pool);
    // The completed command is still deduplicated: nothing new happens.
    const again = await second.submitTransfer({ ...offer, amount: Amount.of(1) });
    expect(again.offset).toBe(before.completion?.offset);
    expect(await second.ledgerEnd()).toBe(before.end);
    // The price set before the restart is carried by the next round.
    await second.advanceClock(MINING_ROUND_MS);
    expect((await second.openMiningRound()).amuletPriceUsd.toString()).toBe('0.2');
    expect((await second.getHoldings(pool)).some((h) => h.instrument.id === usdcx.id)).toBe(false);
  });

  it('drops a torn last line, which was never acknowledged', async () => {
    const dir = await dataDir();
    const first = await open(dir);
    const { alice } = await populate(first);
    const end = await first.ledgerEnd();
    await first.close();
    appendFileSync(join(dir, JOURNAL_FILE), '{"op":"mint","at":1,"comm');

    const second = await open(dir);
    expect(await second.ledgerEnd()).toBe(end);
    await second.createParty({ hint: 'after-repair' });
    await second.close();
    const third = await open(dir);
    expect(await third.getParty(alice)).not.toBeNull();
  });

  it('refuses a journal damaged before its last line', async () => {
    const dir = await dataDir();
    const first = await open(dir);
    await populate(first);
    await first.close();
    const path = join(dir, JOURNAL_FILE);
    const lines = readFileSync(path, 'utf8').split('\n');
    lines[2] = 'not json';
    writeFileSync(path, lines.join('\n'));
    await expect(openLocalLedger({ dataDir: dir })).rejects.toBeInstanceOf(JournalError);
  });

  it('refuses to open a data folder with another operator namespace', async () => {
    const dir = await dataDir();
    await (await open(dir)).close();
    const other = `1220${'ab'.repeat(32)}`;
    await expect(openLocalLedger({ dataDir: dir, operatorNamespace: other })).rejects.toThrow(
      /operator namespace/,
    );
  });

  it('a closed ledger refuses calls and ends live subscriptions', async () => {
    const ledger = await open(await dataDir());
    const iterator = ledger.updates(0)[Symbol.asyncIterator]();
    const pending = iterator.next();
    await ledger.close();
    expect(await pending).toEqual({ done: true, value: undefined });
    await expect(ledger.ledgerEnd()).rejects.toMatchObject({ code: 'closed' });
  });
});
