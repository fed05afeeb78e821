/**
 * An atomic swap of a trader hosted on another participant than the pool's, on a service with
 * `LEDGER=canton` over the devnet ledger server, the trader's party marked hosted elsewhere: the
 * pool's participant reads none of its holdings, so the request carries them as disclosed
 * contracts (`inputHoldings`), as its own participant hands them out.
 *
 * - With its input holding disclosed, the swap is prepared naming that holding, verified, signed
 *   and completed: the trader's balances move by exactly the signed amounts.
 * - Named by id only, the holding is one the pool's participant cannot find: 400
 *   `input_holdings_unknown`, and nothing moved; naming none, it holds nothing the pool's
 *   participant reads: 409 `insufficient_funds`.
 * - Disclosed with a blob that is not the holding's (its amount changed, another holding's, one
 *   no participant can decode): 400 `invalid_input_holdings`, and nothing moved.
 * - Two swaps disclosing one holding: the first completes, the second, its input spent, ends
 *   `rejected` with nothing moved rather than prepared again from holdings the service cannot read.
 * - Bodies the schema refuses (too many, not base64, ids that disagree) are 400s with their codes.
 */
import { Amount, type Instrument } from '@poolparty/core';
import type { DisclosedHolding } from '@poolparty/sdk/atomic';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ATOMIC_POOL_ID,
  type AtomicTrader,
  type AtomicWorld,
  startAtomicWorld,
} from './support/atomic-world.js';

let world: AtomicWorld;
let trader: AtomicTrader;

beforeAll(async () => {
  world = await startAtomicWorld({
    traders: 1,
    traderHoldings: { count: 3, tokenA: '300', tokenB: '45' },
  });
  const [only] = world.traders;
  if (only === undefined) throw new Error('no trader');
  trader = only;
  await world.devnet.server.hostElsewhere(trader.party.partyId);
}, 120_000);

afterAll(() => world?.close());

/** The trader's unlocked Amulet holdings as its own participant discloses them. */
async function disclosedAmulets(): Promise<DisclosedHolding[]> {
  const amulet = world.pool.tokenA;
  const all = await world.devnet.server.disclosedHoldingsOf(trader.party.partyId);
  return all
    .filter(
      ({ holding }) =>
        holding.lock === null &&
        holding.instrument.id === amulet.id &&
        holding.instrument.admin === amulet.admin,
    )
    .map(({ contractId, templateId, createdEventBlob, synchronizerId }) => ({
      contractId,
      templateId,
      createdEventBlob,
      synchronizerId,
    }));
}

async function oneDisclosedAmulet(): Promise<DisclosedHolding> {
  const [first] = await disclosedAmulets();
  if (first === undefined) throw new Error('the trader holds no Amulet');
  return first;
}

/** What the ledger itself holds for the trader (not what the pool's participant reads). */
async function balanceOf(instrument: Instrument): Promise<string> {
  const held = (await world.devnet.ledger.getHoldings(trader.party.partyId)).filter(
    (h) => h.instrument.id === instrument.id && h.instrument.admin === instrument.admin,
  );
  return Amount.sum(held.map((h) => h.amount)).toString();
}

const balances = async () => ({
  amulet: await balanceOf(world.pool.tokenA),
  usdcx: await balanceOf(world.pool.tokenB),
});

const create = (extra: Record<string, unknown>) =>
  trader.pp.atomicSwaps.create({
    fromToken: 'Amulet',
    toToken: 'USDCx',
    amount: '100',
    poolId: ATOMIC_POOL_ID,
    keyFingerprint: trader.signer.fingerprint,
    ...extra,
  });

/** Refused with `status` and `code`, and the trader's balances as they were. */
async function expectRefusedUnmoved(attempt: () => Promise<unknown>, status: number, code: string) {
  const before = await balances();
  await expect(attempt()).rejects.toMatchObject({ status, code });
  expect(await balances()).toEqual(before);
}

/** The blob with the holding's amount changed: a contract the ledger does not have. */
function withAmountChanged(blob: string): string {
  const decoded = JSON.parse(Buffer.from(blob, 'base64').toString('utf8'));
  const text = JSON.stringify(decoded);
  const changed = text.replace(/"amount":"300(\.0*)?"/, '"amount":"3000.0000000000"');
  expect(changed).not.toBe(text);
  return Buffer.from(changed).toString('base64');
}

describe('an atomic swap of a trader hosted on another participant', () => {
  it("is not readable by the pool's participant", async () => {
    expect(await world.service.ctx.ledger.getHoldings(trader.party.partyId)).toEqual([]);
    expect((await disclosedAmulets()).length).toBe(3);
  });

  it('completes with its input holding disclosed, moving exactly the signed amounts', async () => {
    const holding = await oneDisclosedAmulet();
    const before = await balances();
    const swap = await create({ inputHoldings: [holding] });
    expect(swap.data.status).toBe('prepared');
    await swap.verify();
    const done = await swap.execute(trader.signer);
    expect(done.status, JSON.stringify(done.failure)).toBe('completed');
    const after = await balances();
    expect(after.amulet).toBe(Amount.parse(before.amulet).sub(Amount.parse('100')).toString());
    expect(after.usdcx).toBe(
      Amount.parse(before.usdcx).add(Amount.parse(done.output.amount)).toString(),
    );
    // The holding it named is spent: the trader's participant no longer discloses it.
    const left = (await disclosedAmulets()).map((h) => h.contractId);
    expect(left).not.toContain(holding.contractId);
    // What the swap created for the trader is not the pool's participant's to read either.
    expect(await world.service.ctx.ledger.getHoldings(trader.party.partyId)).toEqual([]);
  });

  it('ends rejected, nothing moved, when its disclosed input was spent by another swap', async () => {
    const holding = await oneDisclosedAmulet();
    const [first, second] = [
      await create({ inputHoldings: [holding] }),
      await create({ inputHoldings: [holding] }),
    ];
    expect((await first.execute(trader.signer)).status).toBe('completed');
    const before = await balances();
    // Not prepared again: the pool's participant reads none of the trader's holdings.
    const ended = await second.execute(trader.signer);
    expect(ended).toMatchObject({ status: 'rejected', failure: { code: 'ledger_rejected' } });
    expect(await balances()).toEqual(before);
  });

  it('is refused, nothing moved, when its holding is named but not disclosed', async () => {
    const holding = await oneDisclosedAmulet();
    await expectRefusedUnmoved(
      () => create({ inputHoldingIds: [holding.contractId] }),
      400,
      'input_holdings_unknown',
    );
  });

  it('is refused, nothing moved, when it names no holding at all', async () => {
    // The pool's participant reads none of its holdings, so none covers the input.
    await expectRefusedUnmoved(() => create({}), 409, 'insufficient_funds');
  });

  it('is refused, nothing moved, when the disclosed blob is not the holding', async () => {
    const holding = await oneDisclosedAmulet();
    const forged = { ...holding, createdEventBlob: withAmountChanged(holding.createdEventBlob) };
    await expectRefusedUnmoved(
      () => create({ inputHoldings: [forged] }),
      400,
      'invalid_input_holdings',
    );
  });

  it('is refused, nothing moved, when a disclosure cannot be what it says it is', async () => {
    const holding = await oneDisclosedAmulet();
    // Base64 of no created event the participant can read, and a blob of another contract id.
    const unreadable = { ...holding, createdEventBlob: 'AAAA' };
    const [other] = (await disclosedAmulets()).filter((h) => h.contractId !== holding.contractId);
    if (other === undefined) throw new Error('two Amulet holdings');
    const renamed = { ...holding, createdEventBlob: other.createdEventBlob };
    for (const disclosed of [unreadable, renamed]) {
      await expectRefusedUnmoved(
        () => create({ inputHoldings: [disclosed] }),
        400,
        'invalid_input_holdings',
      );
    }
  });

  it('refuses bodies that cannot name its input holdings, each with its code', async () => {
    const [first, second] = await disclosedAmulets();
    if (first === undefined || second === undefined) throw new Error('two Amulet holdings');
    await expectRefusedUnmoved(
      () => create({ inputHoldings: [first], inputHoldingIds: [second.contractId] }),
      400,
      'input_holdings_mismatch',
    );
    await expectRefusedUnmoved(
      () =>
        create({ inputHoldings: [first, { ...first, createdEventBlob: second.createdEventBlob }] }),
      400,
      'input_holdings_mismatch',
    );
    await expectRefusedUnmoved(
      () => create({ inputHoldings: Array.from({ length: 21 }, () => first) }),
      400,
      'validation_error',
    );
    await expectRefusedUnmoved(
      () => create({ inputHoldings: [{ ...first, createdEventBlob: 'not base64!' }] }),
      400,
      'validation_error',
    );
  });
});
