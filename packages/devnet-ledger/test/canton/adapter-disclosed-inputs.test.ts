/**
 * An atomic swap's input holdings as disclosed contracts, through the canton adapter against the
 * devnet ledger server and through the embedded ledger's port.
 *
 * - A trader the server hosts elsewhere: the pool's participant reads none of its holdings (the
 *   adapter's reads, a contract's events); a prepare naming one of them without disclosing it is
 *   refused as Canton refuses a contract it cannot find (`unknown_contract`); disclosed, it is
 *   prepared naming it, listed among the prepare's `disclosedContracts`, and executes; a
 *   disclosure whose blob is not the holding is refused (`invalid_disclosure`).
 * - A trader the ledger hosts (the embedded ledger's, and the server's other parties): a matching
 *   disclosure of its own holding changes nothing; a changed one is refused the same way; a
 *   named holding of another party is refused (`invalid_inputs`), and a pool's holding the
 *   participant cannot find is the pool's spent input (`invalid_inputs`).
 */
import { Amount, type DisclosedHolding, generateKeyPair, sign } from '@poolparty/core';
import { embeddedAtomicSwaps } from '@poolparty/devnet-ledger';
import type {
  AtomicSwapPort,
  LedgerErrorCode,
  PrepareAtomicSwapCommand,
  PreparedAtomicSwap,
} from '@poolparty/ledger';
import { expectRefused } from '@poolparty/ledger/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/server.js';
import { type AdapterWorld, startAdapterWorld, tokenOf } from './adapter-world.js';

const SIGNING_WINDOW_MS = 60_000;

interface Trader {
  readonly partyId: string;
  readonly publicKey: Uint8Array;
  readonly privateKey: Uint8Array;
}

let w: AdapterWorld;
let pool: string;
/** Hosted elsewhere on the served participant. */
let away: Trader;
/** Hosted here. */
let home: Trader;
let sequence = 0;

async function newTrader(hint: string): Promise<Trader> {
  const keys = generateKeyPair();
  const { partyId } = await w.local.createParty({
    hint,
    publicKey: keys.publicKey,
    preapprovals: [w.eur],
  });
  for (let n = 0; n < 3; n++) {
    await w.local.mint({ owner: partyId, instrument: w.usd, amount: Amount.of(10) });
  }
  return { partyId, ...keys };
}

beforeAll(async () => {
  w = await startAdapterWorld();
  pool = (await w.local.createParty({ hint: 'pool', preapprovals: [w.usd] })).partyId;
  await w.local.mint({ owner: pool, instrument: w.eur, amount: Amount.of(100) });
  away = await newTrader('away');
  home = await newTrader('home');
  await w.server.hostElsewhere(away.partyId);
});
afterAll(async () => {
  await w.close();
});

/** The trader's USD holdings as its own participant discloses them. */
async function disclosedOf(trader: Trader): Promise<DisclosedHolding[]> {
  return (await w.server.disclosedHoldingsOf(trader.partyId))
    .filter(({ holding }) => holding.instrument.id === 'USD' && holding.lock === null)
    .map(({ holding: _holding, ...disclosed }) => disclosed);
}

async function oneDisclosed(trader: Trader): Promise<DisclosedHolding> {
  const [first] = await disclosedOf(trader);
  if (first === undefined) throw new Error('the trader holds no USD');
  return first;
}

async function prepareWith(
  port: AtomicSwapPort,
  trader: Trader,
  input: Partial<PrepareAtomicSwapCommand['input']>,
) {
  sequence += 1;
  const now = await w.canton.now();
  return port.prepareAtomicSwap({
    commandId: `disclosed-${sequence}`,
    trader: trader.partyId,
    pool,
    input: { instrument: w.usd, amount: Amount.of(10), ...input },
    output: { instrument: w.eur, amount: Amount.parse('4.25') },
    expiresAt: new Date(now.getTime() + SIGNING_WINDOW_MS),
  });
}

function signed(prepared: PreparedAtomicSwap, trader: Trader) {
  const hash = Buffer.from(prepared.preparedTransactionHash, 'base64');
  return {
    prepared,
    traderSignature: { signature: sign(hash, trader.privateKey), publicKey: trader.publicKey },
  };
}

/** What the ledger itself holds of the trader's USD, and its end. */
async function ledgerState(trader: Trader) {
  const held = (await w.local.getHoldings(trader.partyId)).filter((h) => h.instrument.id === 'USD');
  return {
    usd: Amount.sum(held.map((h) => h.amount)).toString(),
    end: await w.local.ledgerEnd(),
  };
}

async function expectNothingMoved(
  trader: Trader,
  attempt: () => Promise<unknown>,
  code: LedgerErrorCode,
) {
  const before = await ledgerState(trader);
  await expectRefused(attempt(), code);
  expect(await ledgerState(trader)).toEqual(before);
}

/** The disclosure with the holding's amount changed in its blob: no contract the ledger has. */
function forged(disclosed: DisclosedHolding): DisclosedHolding {
  const text = Buffer.from(disclosed.createdEventBlob, 'base64').toString('utf8');
  const changed = text.replace(/"amount":"10(\.0*)?"/, '"amount":"1000.0000000000"');
  expect(changed).not.toBe(text);
  return { ...disclosed, createdEventBlob: Buffer.from(changed).toString('base64') };
}

describe('a trader hosted on another participant, through the canton adapter', () => {
  it("has no holding in the pool's participant's reads", async () => {
    expect(await w.canton.getHoldings(away.partyId)).toEqual([]);
    expect((await w.canton.getHoldings(home.partyId)).length).toBe(3);
    const eventsOf = async (trader: Trader) =>
      call(
        w.server.url,
        'POST',
        '/v2/events/events-by-contract-id',
        {
          contractId: (await oneDisclosed(trader)).contractId,
          eventFormat: { filtersByParty: { [trader.partyId]: {} }, verbose: false },
        },
        await tokenOf('poolparty'),
      );
    expect((await eventsOf(home)).status).toBe(200);
    const answer = await eventsOf(away);
    expect({ status: answer.status, code: answer.body?.code }).toEqual({
      status: 404,
      code: 'CONTRACT_EVENTS_NOT_FOUND',
    });
  });

  it('is refused a prepare naming its holding without disclosing it, nothing moved', async () => {
    const holding = await oneDisclosed(away);
    await expectNothingMoved(
      away,
      () => prepareWith(w.canton, away, { holdingIds: [holding.contractId] }),
      'unknown_contract',
    );
  });

  it('is refused a disclosure whose blob is not its holding, nothing moved', async () => {
    const holding = forged(await oneDisclosed(away));
    await expectNothingMoved(
      away,
      () => prepareWith(w.canton, away, { disclosedHoldings: [holding] }),
      'invalid_disclosure',
    );
  });

  it('prepares with its holding disclosed, naming it, and executes', async () => {
    const holding = await oneDisclosed(away);
    const before = await ledgerState(away);
    const prepared = await prepareWith(w.canton, away, { disclosedHoldings: [holding] });
    expect(prepared.input.holdingIds).toEqual([holding.contractId]);
    const result = await w.canton.executeAtomicSwap(signed(prepared, away));
    expect(typeof result.updateId).toBe('string');
    const after = await ledgerState(away);
    expect(after.usd).toBe(Amount.parse(before.usd).sub(Amount.of(10)).toString());
    expect((await disclosedOf(away)).map((h) => h.contractId)).not.toContain(holding.contractId);
    // Nor are the holdings the swap created for it (its change, its EUR), caught up or listed.
    expect(await w.canton.getHoldings(away.partyId)).toEqual([]);
    expect(await (await w.open()).getHoldings(away.partyId)).toEqual([]);
  });
});

const HOSTED_HERE: readonly { readonly name: string; readonly port: () => AtomicSwapPort }[] = [
  { name: 'through the canton adapter', port: () => w.canton },
  { name: 'on the embedded ledger', port: () => embeddedAtomicSwaps(w.local) },
];

describe.each(HOSTED_HERE)('a trader hosted here, $name', ({ port }) => {
  it("is refused a named holding that is another party's, nothing moved", async () => {
    const [alices] = (await w.local.getHoldings(w.alice)).filter((h) => h.instrument.id === 'USD');
    if (alices === undefined) throw new Error('alice holds USD');
    await expectNothingMoved(
      home,
      () => prepareWith(port(), home, { holdingIds: [alices.holdingId] }),
      'invalid_inputs',
    );
  });

  it("reads a pool's holding the participant cannot find as the pool's spent input", async () => {
    sequence += 1;
    const now = await w.canton.now();
    const gone = `00${'f'.repeat(64)}`;
    await expectNothingMoved(
      home,
      () =>
        port().prepareAtomicSwap({
          commandId: `disclosed-${sequence}`,
          trader: home.partyId,
          pool,
          input: { instrument: w.usd, amount: Amount.of(10) },
          output: { instrument: w.eur, amount: Amount.parse('4.25'), holdingIds: [gone] },
          expiresAt: new Date(now.getTime() + SIGNING_WINDOW_MS),
        }),
      'invalid_inputs',
    );
  });

  it('swaps with a disclosure of its own holding that matches it', async () => {
    const holding = await oneDisclosed(home);
    const prepared = await prepareWith(port(), home, {
      holdingIds: [holding.contractId],
      disclosedHoldings: [holding],
    });
    expect(prepared.input.holdingIds).toEqual([holding.contractId]);
    await port().executeAtomicSwap(signed(prepared, home));
  });

  it('is refused a disclosure whose blob is not its holding, nothing moved', async () => {
    const holding = forged(await oneDisclosed(home));
    await expectNothingMoved(
      home,
      () => prepareWith(port(), home, { disclosedHoldings: [holding] }),
      'invalid_disclosure',
    );
  });
});
