/**
 * The holdings a transfer spends on the local ledger: exactly those it names when it names them
 * (the Token Standard's `inputHoldingCids`), refused when they cannot be its inputs; and a
 * transfer to oneself, Splice's self-transfer, which merges the named holdings into one.
 */
import { Amount, type Instrument } from '@poolparty/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Holding,
  INPUT_HOLDINGS_MAX,
  LedgerError,
  type LocalLedger,
  type LocalTransferCommand,
  openLocalLedger,
} from '../src/index.js';
import { selectLargestFirst, selectNamed } from '../src/local/input-holdings.js';

const ledgers: LocalLedger[] = [];
afterEach(async () => {
  await Promise.all(ledgers.splice(0).map((ledger) => ledger.close()));
});

interface World {
  readonly ledger: LocalLedger;
  readonly usdcx: Instrument;
  readonly other: Instrument;
  readonly alice: string;
  readonly bob: string;
  /** Alice's holdings of USDCx: 40, 10 and 25, in that order. */
  readonly held: readonly Holding[];
}

type HoldingChoice = Pick<LocalTransferCommand, 'inputHoldingIds' | 'avoidHoldingIds'>;

/** Alice pays Bob `amount` USDCx from the holdings `inputs` names or lets the ledger pick. */
function aliceToBob(w: World, commandId: string, amount: number, inputs: HoldingChoice) {
  return w.ledger.submitTransfer({
    commandId,
    sender: w.alice,
    receiver: w.bob,
    instrument: w.usdcx,
    amount: Amount.of(amount),
    ...inputs,
  });
}

async function usdcxOf(ledger: LocalLedger, party: string): Promise<Holding[]> {
  return (await ledger.getHoldings(party)).filter((h) => h.instrument.id === 'USDCx');
}

async function world(): Promise<World> {
  const ledger = await openLocalLedger({ startTime: new Date('2030-01-01T00:00:00Z') });
  ledgers.push(ledger);
  const admin = (await ledger.createParty({ hint: 'registry' })).partyId;
  const usdcx = { admin, id: 'USDCx' };
  const other = { admin, id: 'CBTC' };
  await ledger.createInstrument(usdcx);
  await ledger.createInstrument(other);
  const alice = (await ledger.createParty({ hint: 'alice' })).partyId;
  const bob = (await ledger.createParty({ hint: 'bob', preapprovals: 'all' })).partyId;
  for (const amount of [40, 10, 25]) {
    await ledger.mint({ owner: alice, instrument: usdcx, amount: Amount.of(amount) });
  }
  await ledger.mint({ owner: alice, instrument: other, amount: Amount.of(1) });
  await ledger.mint({ owner: bob, instrument: usdcx, amount: Amount.of(7) });
  const held = await usdcxOf(ledger, alice);
  return { ledger, usdcx, other, alice, bob, held };
}

const amounts = (holdings: readonly Holding[]) => holdings.map((h) => h.amount.toString()).sort();

async function refusal(attempt: Promise<unknown>): Promise<string> {
  const error = await attempt.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof LedgerError)) throw new Error(`not refused: ${String(error)}`);
  return error.code;
}

describe('a transfer that names its input holdings', () => {
  it('archives exactly those, not the ones the ledger would pick, and returns the change', async () => {
    const w = await world();
    const ten = w.held[1] as Holding;
    const result = await aliceToBob(w, 'named', 6, { inputHoldingIds: [ten.holdingId] });
    expect(result.kind).toBe('direct');
    const changes = w.ledger.holdingChangesAt(result.offset);
    expect(changes?.archived.map((h) => h.holdingId)).toEqual([ten.holdingId]);
    const left = await usdcxOf(w.ledger, w.alice);
    expect(amounts(left)).toEqual(['25', '4', '40']);
  });

  it('passes over the holdings it is told to avoid when the ledger picks', async () => {
    const w = await world();
    const forty = w.held[0] as Holding;
    const result = await aliceToBob(w, 'avoiding', 6, { avoidHoldingIds: [forty.holdingId] });
    // The largest other, the 25, paid it; the 40 a swap reserves is untouched.
    const left = await usdcxOf(w.ledger, w.alice);
    expect(amounts(left)).toEqual(['10', '19', '40']);
    expect(w.ledger.holdingChangesAt(result.offset)?.archived).toHaveLength(1);
  });

  it('refuses inputs that are not the sender’s unlocked holdings of the instrument, once each', async () => {
    const w = await world();
    const [forty, ten] = w.held as [Holding, Holding];
    const bobs = (await w.ledger.getHoldings(w.bob))[0] as Holding;
    const cbtc = (await w.ledger.getHoldings(w.alice)).find((h) => h.instrument.id === 'CBTC');
    const transfer = (inputHoldingIds: string[], amount = 5) =>
      aliceToBob(w, `bad-${inputHoldingIds.join('-')}-${amount}`, amount, { inputHoldingIds });
    const end = await w.ledger.ledgerEnd();
    expect(await refusal(transfer([ten.holdingId], 11))).toBe('insufficient_holdings');
    expect(await refusal(transfer([bobs.holdingId]))).toBe('invalid_inputs');
    expect(await refusal(transfer([cbtc?.holdingId ?? '']))).toBe('invalid_inputs');
    expect(await refusal(transfer(['holding-0-none']))).toBe('invalid_inputs');
    expect(await refusal(transfer([ten.holdingId, ten.holdingId]))).toBe('invalid_inputs');
    expect(await w.ledger.ledgerEnd()).toBe(end);
    // A holding locked for an offer is no input either.
    const offer = await w.ledger.submitTransfer({
      commandId: 'offer',
      sender: w.bob,
      receiver: w.alice,
      instrument: w.usdcx,
      amount: Amount.of(1),
    });
    const locked = w.ledger.holdingChangesAt(offer.offset)?.created.find((h) => h.lock !== null);
    expect(
      await refusal(
        w.ledger.submitTransfer({
          commandId: 'locked',
          sender: w.bob,
          receiver: w.alice,
          instrument: w.usdcx,
          amount: Amount.of(1),
          inputHoldingIds: [locked?.holdingId ?? ''],
        }),
      ),
    ).toBe('invalid_inputs');
    expect(forty.amount.toString()).toBe('40');
  });
});

describe('a transfer to oneself', () => {
  it('merges the named holdings into one holding of their sum, directly', async () => {
    const w = await world();
    const ids = w.held.map((h) => h.holdingId);
    const result = await w.ledger.submitTransfer({
      commandId: 'merge',
      sender: w.alice,
      receiver: w.alice,
      instrument: w.usdcx,
      amount: Amount.of(75),
      inputHoldingIds: ids,
    });
    expect(result.kind).toBe('direct');
    const changes = w.ledger.holdingChangesAt(result.offset);
    expect(changes?.archived.map((h) => h.holdingId).sort()).toEqual([...ids].sort());
    expect(changes?.created.map((h) => [h.owner, h.amount.toString()])).toEqual([[w.alice, '75']]);
    // It moves no value between parties: no event, as the port reads a merge on Canton.
    expect(w.ledger.updateAt(result.offset)?.events).toEqual([]);
    expect(changes?.selfTransfer).toMatchObject({ owner: w.alice, instrument: w.usdcx });
    expect(changes?.selfTransfer?.amount.toString()).toBe('75');
  });
});

describe('the selection itself', () => {
  const instrument = { admin: 'registry::1220', id: 'USDCx' };
  const holding = (holdingId: string, amount: number, owner = 'alice'): Holding => ({
    holdingId,
    owner,
    instrument,
    amount: Amount.of(amount),
    lock: null,
  });

  it('picks the largest first, and only as many as cover the amount', () => {
    const picked = selectLargestFirst(
      [holding('a', 5), holding('b', 20), holding('c', 10)],
      'alice',
      instrument,
      Amount.of(25),
    );
    expect(picked.inputs.map((h) => h.holdingId)).toEqual(['b', 'c']);
    expect(picked.change.toString()).toBe('5');
  });

  it('takes named holdings in the order named, and at most the limit of them', () => {
    const byId = new Map(['a', 'b'].map((id) => [id, holding(id, 3)]));
    const named = selectNamed(['b', 'a'], (id) => byId.get(id), 'alice', instrument, Amount.of(6));
    expect(named.inputs.map((h) => h.holdingId)).toEqual(['b', 'a']);
    expect(named.change.isZero()).toBe(true);
    const many = Array.from({ length: INPUT_HOLDINGS_MAX + 1 }, (_, i) => `h${i}`);
    expect(() => selectNamed(many, () => undefined, 'alice', instrument, Amount.of(1))).toThrow(
      /at most 100/,
    );
  });
});
