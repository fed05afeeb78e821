/**
 * Atomic swaps through the canton adapter against the devnet ledger server, and through the
 * embedded ledger's port (the same interactive submission in process), alike: one prepared
 * transaction holds the trader's input leg and the pool's output leg; the trader's own key signs
 * its hash (here, as the wallet would, outside the port); the port executes it acting for the
 * pool. A good signature moves both legs in one update; a changed transaction, another key, a
 * signature after `expiresAt`, a second execution and a spent input move nothing.
 */
import { hashPreparedTransaction } from '@canton-network/core-tx-visualizer';
import { Amount, fingerprint, generateKeyPair, type Instrument, sign } from '@poolparty/core';
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
import { shownLegs } from '../support/visualizer.js';
import { type AdapterWorld, startAdapterWorld, tokenOf } from './adapter-world.js';

const SIGNING_WINDOW_MS = 60_000;

let w: AdapterWorld;
let pool: string;
let trader: { partyId: string; publicKey: Uint8Array; privateKey: Uint8Array };
let sequence = 0;

beforeAll(async () => {
  w = await startAdapterWorld();
  // The pool takes USD and the trader EUR by pre-approval, so each leg settles in the transaction.
  pool = (await w.local.createParty({ hint: 'pool', preapprovals: [w.usd] })).partyId;
  const keys = generateKeyPair();
  const created = await w.local.createParty({
    hint: 'trader',
    publicKey: keys.publicKey,
    preapprovals: [w.eur],
  });
  trader = { partyId: created.partyId, ...keys };
  // Enough for both ports' suites.
  await w.local.mint({ owner: trader.partyId, instrument: w.usd, amount: Amount.of(60) });
  await w.local.mint({ owner: pool, instrument: w.eur, amount: Amount.of(100) });
});
afterAll(async () => {
  await w.close();
});

async function prepareWith(
  port: AtomicSwapPort,
  overrides: Partial<PrepareAtomicSwapCommand> = {},
) {
  sequence += 1;
  const now = await w.canton.now();
  return port.prepareAtomicSwap({
    commandId: `atomic-${sequence}`,
    trader: trader.partyId,
    pool,
    input: { instrument: w.usd, amount: Amount.of(10) },
    output: { instrument: w.eur, amount: Amount.parse('4.25') },
    expiresAt: new Date(now.getTime() + SIGNING_WINDOW_MS),
    ...overrides,
  });
}

/** The trader's wallet signs the hash it was shown. */
function signed(prepared: PreparedAtomicSwap, privateKey = trader.privateKey) {
  const publicKey = privateKey === trader.privateKey ? trader.publicKey : null;
  return {
    prepared,
    traderSignature: {
      signature: sign(Buffer.from(prepared.preparedTransactionHash, 'base64'), privateKey),
      publicKey: publicKey ?? generateKeyPair().publicKey,
    },
  };
}

async function balances() {
  const of = async (party: string, instrument: Instrument) => {
    const held = (await w.canton.getHoldings(party)).filter(
      (h) => h.instrument.id === instrument.id && h.lock === null,
    );
    return Amount.sum(held.map((h) => h.amount)).toString();
  };
  return {
    traderUsd: await of(trader.partyId, w.usd),
    traderEur: await of(trader.partyId, w.eur),
    poolUsd: await of(pool, w.usd),
    poolEur: await of(pool, w.eur),
    end: await w.canton.ledgerEnd(),
  };
}

/** Refused with `code`, and both parties' holdings and the ledger's end as they were. */
async function expectNothingMoved(attempt: () => Promise<unknown>, code: LedgerErrorCode) {
  const before = await balances();
  await expectRefused(attempt(), code);
  expect(await balances()).toEqual(before);
}

/** Each port, and the port a restarted process opens over the same ledger. */
const PORTS: readonly {
  readonly name: string;
  readonly port: () => AtomicSwapPort;
  readonly reopened: () => Promise<AtomicSwapPort>;
}[] = [
  { name: 'through the canton adapter', port: () => w.canton, reopened: () => w.open() },
  {
    name: 'on the embedded ledger',
    port: () => embedded,
    reopened: async () => embeddedAtomicSwaps(w.local),
  },
];
let embedded: AtomicSwapPort;
beforeAll(() => {
  embedded = embeddedAtomicSwaps(w.local);
});

describe.each(PORTS)('an atomic swap $name', ({ port, reopened }) => {
  const prepare = (overrides: Partial<PrepareAtomicSwapCommand> = {}) =>
    prepareWith(port(), overrides);

  it('prepares both legs, which the wallet sees with their amounts and can hash itself', async () => {
    const prepared = await prepare();
    expect(prepared.input).toMatchObject({ sender: trader.partyId, receiver: pool });
    expect(prepared.output).toMatchObject({ sender: pool, receiver: trader.partyId });
    expect(prepared.input.holdingIds.length).toBeGreaterThan(0);
    const legs = shownLegs(prepared.preparedTransaction);
    expect(legs.map(({ sender, receiver, amount }) => ({ sender, receiver, amount }))).toEqual([
      {
        sender: `party:${trader.partyId}`,
        receiver: `party:${pool}`,
        amount: 'numeric:10.0000000000',
      },
      {
        sender: `party:${pool}`,
        receiver: `party:${trader.partyId}`,
        amount: 'numeric:4.2500000000',
      },
    ]);
    expect(await hashPreparedTransaction(prepared.preparedTransaction)).toBe(
      prepared.preparedTransactionHash,
    );
  });

  it('executes with the trader’s signature: both legs move exactly, in one update', async () => {
    const prepared = await prepare();
    const before = await balances();
    const result = await port().executeAtomicSwap(signed(prepared));
    const after = await balances();
    expect(after).toEqual({
      traderUsd: Amount.parse(before.traderUsd).sub(Amount.of(10)).toString(),
      traderEur: Amount.parse(before.traderEur).add(Amount.parse('4.25')).toString(),
      poolUsd: Amount.parse(before.poolUsd).add(Amount.of(10)).toString(),
      poolEur: Amount.parse(before.poolEur).sub(Amount.parse('4.25')).toString(),
      end: result.offset,
    });
    expect(await w.canton.lookupCommand(prepared.commandId)).toMatchObject({
      updateId: result.updateId,
    });
    // The trader's stream shows one update: its input out and its output in.
    const update = w.local.updateAt(result.offset);
    expect(update?.updateId).toBe(result.updateId);
    expect(
      update?.events.map((e) => e.kind === 'transfer' && `${e.sender}→${e.receiver} ${e.amount}`),
    ).toEqual([`${trader.partyId}→${pool} 10`, `${pool}→${trader.partyId} 4.25`]);
  });

  it('answers a second execution with the first, moving nothing, also after a restart', async () => {
    const prepared = await prepare();
    const first = await port().executeAtomicSwap(signed(prepared));
    const before = await balances();
    expect(await port().executeAtomicSwap(signed(prepared))).toEqual(first);
    const restarted = await reopened();
    expect(await restarted.executeAtomicSwap(signed(prepared))).toEqual(first);
    expect(await balances()).toEqual(before);
  });

  it('refuses a transaction whose output was changed after it was prepared', async () => {
    const prepared = await prepare();
    const bytes = Buffer.from(prepared.preparedTransaction, 'base64');
    const at = bytes.indexOf('4.2500000000');
    expect(at).toBeGreaterThan(0);
    bytes[at] = '9'.charCodeAt(0);
    // The wallet signed what it was shown; the transaction sent for execution is another.
    const tampered = signed(prepared);
    await expectNothingMoved(
      () =>
        port().executeAtomicSwap({
          ...tampered,
          prepared: { ...prepared, preparedTransaction: bytes.toString('base64') },
        }),
      'signature_invalid',
    );
  });

  it('refuses another key’s signature before sending anything', async () => {
    const prepared = await prepare();
    const stranger = generateKeyPair();
    const hash = Buffer.from(prepared.preparedTransactionHash, 'base64');
    const refused = [
      // Another key, named as itself: it verifies, but it is not the trader's.
      { signature: sign(hash, stranger.privateKey), publicKey: stranger.publicKey },
      // Another key's signature presented with the trader's key: it does not verify.
      { signature: sign(hash, stranger.privateKey), publicKey: trader.publicKey },
      // The trader's key over something else than this transaction's hash.
      { signature: sign('another hash', trader.privateKey), publicKey: trader.publicKey },
    ];
    for (const traderSignature of refused) {
      await expectNothingMoved(
        () => port().executeAtomicSwap({ prepared, traderSignature }),
        'signature_invalid',
      );
    }
    expect(await w.canton.lookupCommand(prepared.commandId)).toBeNull();
  });

  it('refuses a signature after expiresAt, and so does the ledger, the deadline being signed', async () => {
    const prepared = await prepare();
    const body = signed(prepared);
    await w.local.advanceClock(SIGNING_WINDOW_MS);
    await expectNothingMoved(() => port().executeAtomicSwap(body), 'deadline_passed');
    // Sent to the participant directly, past the adapter: the legs' executeBefore refuses it.
    const before = await balances();
    const answer = await call(
      w.server.url,
      'POST',
      '/v2/interactive-submission/executeAndWait',
      {
        preparedTransaction: prepared.preparedTransaction,
        hashingSchemeVersion: prepared.hashingSchemeVersion,
        submissionId: 'late',
        partySignatures: {
          signatures: [
            {
              party: trader.partyId,
              signatures: [
                {
                  format: 'SIGNATURE_FORMAT_CONCAT',
                  signature: Buffer.from(body.traderSignature.signature).toString('base64'),
                  signedBy: fingerprint(trader.publicKey),
                  signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
                },
              ],
            },
          ],
        },
      },
      await tokenOf('poolparty'),
    );
    expect(answer.status).toBe(400);
    expect(answer.body.context?.error_id).toBe('offer_expired');
    expect(await balances()).toEqual(before);
  });

  it('refuses an input spent since it was prepared, to be prepared again', async () => {
    const holdings = (await w.canton.getHoldings(trader.partyId)).filter(
      (h) => h.instrument.id === 'USD' && h.lock === null,
    );
    const [holding] = holdings;
    if (holding === undefined) throw new Error('the trader holds USD');
    const named = { instrument: w.usd, amount: Amount.of(1), holdingIds: [holding.holdingId] };
    const first = await prepare({ input: named });
    const second = await prepare({ input: named });
    await port().executeAtomicSwap(signed(first));
    await expectNothingMoved(() => port().executeAtomicSwap(signed(second)), 'invalid_inputs');
    // Prepared again, from the holdings there are now, it executes.
    const again = await prepare({ input: { instrument: w.usd, amount: Amount.of(1) } });
    await port().executeAtomicSwap(signed(again));
  });

  it('refuses to prepare what cannot be funded or has already expired', async () => {
    await expectRefused(
      prepare({ output: { instrument: w.eur, amount: Amount.of(1000) } }),
      'insufficient_holdings',
    );
    await expectRefused(
      prepare({ expiresAt: new Date((await w.canton.now()).getTime()) }),
      'deadline_passed',
    );
    await expectRefused(prepare({ pool: trader.partyId }), 'not_authorized');
    // A receiver without a pre-approval would get an offer, not its side of the swap.
    await expectRefused(
      prepare({
        pool: w.alice,
        input: { instrument: w.usd, amount: Amount.of(1) },
        output: { instrument: w.eur, amount: Amount.of(1) },
      }),
      'not_authorized',
    );
  });
});

describe('the canton adapter picking the trader’s inputs', () => {
  it('picks them again from a fresh read when the ones it read were spent before the prepare', async () => {
    const canton = w.canton;
    const stale = await canton.getHoldings(trader.partyId);
    const usd = stale.filter((h) => h.instrument.id === 'USD' && h.lock === null);
    // The trader's previous swap commits between the adapter's read and its prepare.
    await w.local.burn({ owner: trader.partyId, instrument: w.usd, amount: Amount.of(1) });
    const fresh = (await canton.getHoldings(trader.partyId)).map((h) => h.holdingId);
    const spent = usd.map((h) => h.holdingId).filter((id) => !fresh.includes(id));
    expect(spent.length).toBeGreaterThan(0);
    const read = canton.getHoldings.bind(canton);
    let staleReads = 0;
    canton.getHoldings = async (partyId: string) => {
      if (partyId !== trader.partyId || staleReads > 0) return read(partyId);
      staleReads += 1;
      return stale;
    };
    try {
      const prepared = await prepareWith(canton, {
        input: { instrument: w.usd, amount: Amount.of(1) },
      });
      expect(staleReads).toBe(1);
      expect(prepared.input.holdingIds.some((id) => spent.includes(id))).toBe(false);
      await canton.executeAtomicSwap(signed(prepared));
    } finally {
      canton.getHoldings = read;
    }
  });
});
