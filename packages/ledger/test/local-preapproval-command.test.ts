/**
 * A pre-approval submitted as a command (a wallet's proposal the validator accepts): an update of
 * its own with no event, its completion, deduplicated by command id, and kept across a restart.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type LocalLedger, openLocalLedger } from '../src/index.js';

const dirs: string[] = [];
const ledgers: LocalLedger[] = [];
afterEach(async () => {
  await Promise.all(ledgers.splice(0).map((ledger) => ledger.close()));
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function open(dataDir: string): Promise<LocalLedger> {
  const ledger = await openLocalLedger({ dataDir });
  ledgers.push(ledger);
  return ledger;
}

describe('a submitted pre-approval', () => {
  it('commits an update without events, completes once, and survives a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'preapproval-'));
    dirs.push(dir);
    const ledger = await open(dir);
    const amulet = { admin: (await ledger.createParty({ hint: 'DSO' })).partyId, id: 'Amulet' };
    await ledger.createInstrument(amulet);
    const carol = (await ledger.createParty({ hint: 'carol' })).partyId;
    const command = { commandId: 'carol-preapproval', receiver: carol, instrument: amulet };
    const result = await ledger.submitPreapproval(command);
    expect(await ledger.preapproves(carol, amulet)).toBe(true);
    expect(ledger.updateAt(result.offset)?.events).toEqual([]);
    expect((await ledger.lookupCommand('carol-preapproval'))?.offset).toBe(result.offset);
    expect(await ledger.submitPreapproval(command)).toEqual(result);
    expect(await ledger.ledgerEnd()).toBe(result.offset);
    await ledger.close();
    const reopened = await open(dir);
    expect(await reopened.preapproves(carol, amulet)).toBe(true);
    expect(await reopened.ledgerEnd()).toBe(result.offset);
  });
});
