import { ed25519 } from '@noble/curves/ed25519.js';
import { Amount } from '@poolparty/core';
import { type LedgerErrorCode, REASON_META_KEY } from '@poolparty/ledger';
import { HOLDING_INTERFACE_ID } from '@poolparty/ledger/canton/wire';
import {
  activeContractsRequest,
  expectRefused,
  refusal,
  webSocketList,
} from '@poolparty/ledger/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AdapterWorld,
  amount,
  balance,
  offerToCarol,
  startAdapterWorld,
  tokenOf,
} from './adapter-world.js';

let w: AdapterWorld;
let sequence = 0;
function cmd(label: string): string {
  sequence += 1;
  return `${label}-${sequence}`;
}

beforeAll(async () => {
  w = await startAdapterWorld();
});
afterAll(async () => {
  await w.close();
});

/** Refused with `code`, the ledger's end where it was: the refusal changed nothing. */
async function expectRefusedUnchanged(attempt: () => Promise<unknown>, code: LedgerErrorCode) {
  const end = await w.canton.ledgerEnd();
  const error = await expectRefused(attempt(), code);
  expect(await w.canton.ledgerEnd()).toBe(end);
  return error;
}

describe('the canton adapter against a devnet ledger server', () => {
  it('reads parties: internal in the participant namespace, external by key, unknown as null', async () => {
    expect(await w.canton.getParty(w.alice)).toEqual({ partyId: w.alice, kind: 'internal' });
    expect(await w.canton.getParty(w.wallet)).toEqual({ partyId: w.wallet, kind: 'external' });
    expect(await w.canton.getParty(`ghost::1220${'0'.repeat(64)}`)).toBeNull();
    expect(await w.canton.getParty('not a party id')).toBeNull();
    const key = ed25519.getPublicKey(w.walletSecret);
    expect(await w.canton.isSigningKeyOf(w.wallet, key)).toBe(true);
    expect(await w.canton.isSigningKeyOf(w.alice, key)).toBe(false);
    expect(await w.canton.isSigningKeyOf(w.wallet, new Uint8Array(32))).toBe(false);
  });

  it('acts as the parties its user has CanActAs for, and as those whose key it holds', async () => {
    expect(await w.canton.canActAs(w.alice)).toEqual({ canAct: true });
    // The participant grants its user no right for an external party: only its key signs for it.
    expect(await w.canton.canActAs(w.wallet)).toEqual({
      canAct: false,
      reason: "the participant's user poolparty has no CanActAs right for it",
    });
    const signing = await w.open({
      externalSigners: (partyId) =>
        partyId === w.wallet
          ? {
              publicKey: ed25519.getPublicKey(w.walletSecret),
              sign: async (message) => ed25519.sign(message, w.walletSecret),
            }
          : undefined,
    });
    expect(await signing.canActAs(w.wallet)).toEqual({ canAct: true });
  });

  it('lists the instruments of the admins’ registries', async () => {
    const instruments = await w.canton.listInstruments();
    expect(instruments).toContainEqual(w.usd);
    expect(instruments).toContainEqual(w.eur);

    // A registry that is not there lists nothing; the others still answer.
    const base = w.options().registries;
    const withMissing = await w.open({
      registries: {
        ...base,
        byAdmin: { ...base.byAdmin, [`nobody::1220${'1'.repeat(64)}`]: `${w.server.url}/nowhere` },
      },
    });
    expect(await withMissing.listInstruments()).toEqual(expect.arrayContaining([w.usd, w.eur]));
  });

  it('settles a transfer to a pre-approving receiver directly, with its reason', async () => {
    const before = await balance(w.canton, w.alice, w.usd);
    const bobBefore = await balance(w.canton, w.bob, w.usd);
    const end = await w.canton.ledgerEnd();
    const outcome = await w.canton.submitTransfer({
      commandId: cmd('direct'),
      sender: w.alice,
      receiver: w.bob,
      instrument: w.usd,
      amount: amount('12.3456789012'),
      meta: { [REASON_META_KEY]: 'invoice 42' },
    });
    expect(outcome.kind).toBe('direct');
    expect(outcome.offset).toBeGreaterThan(end);
    expect(Amount.parse((await balance(w.canton, w.alice, w.usd)).total)).toEqual(
      Amount.parse(before.total).sub(amount('12.3456789012')),
    );
    expect(Amount.parse((await balance(w.canton, w.bob, w.usd)).total)).toEqual(
      Amount.parse(bobBefore.total).add(amount('12.3456789012')),
    );
  });

  /** A fresh internal sender holding one USD holding of each of `sizes`. */
  async function senderHolding(hint: string, sizes: readonly string[]) {
    const sender = (await w.local.createParty({ hint })).partyId;
    for (const size of sizes) {
      await w.local.mint({ owner: sender, instrument: w.usd, amount: amount(size) });
    }
    return sender;
  }

  const unlockedAmounts = async (party: string) =>
    (await w.canton.getHoldings(party))
      .filter((h) => h.lock === null && h.instrument.id === w.usd.id)
      .map((h) => h.amount.toString())
      .sort();

  it('runs transfers of one sender side by side, each naming holdings of its own', async () => {
    const dave = await senderHolding('dave', ['10', '10', '10', '10']);
    const outcomes = await Promise.all(
      [1, 2, 3, 4].map((i) =>
        w.canton.submitTransfer({
          commandId: cmd(`side-by-side-${i}`),
          sender: dave,
          receiver: w.bob,
          instrument: w.usd,
          amount: amount('3'),
        }),
      ),
    );
    expect(outcomes.map((o) => o.kind)).toEqual(['direct', 'direct', 'direct', 'direct']);
    // Each spent one holding of 10 and got 7 back: none waited for another's change.
    expect(await unlockedAmounts(dave)).toEqual(['7', '7', '7', '7']);
  });

  it('lets a transfer whose free holdings fall short wait for the change of the one before', async () => {
    const erin = await senderHolding('erin', ['10']);
    const outcomes = await Promise.all(
      [1, 2].map((i) =>
        w.canton.submitTransfer({
          commandId: cmd(`in-turn-${i}`),
          sender: erin,
          receiver: w.bob,
          instrument: w.usd,
          amount: amount('3'),
        }),
      ),
    );
    expect(outcomes.map((o) => o.kind)).toEqual(['direct', 'direct']);
    expect(await unlockedAmounts(erin)).toEqual(['4']);
  });

  it('names none of the holdings it is told to avoid, nor any set aside for a swap', async () => {
    const fay = await senderHolding('fay', ['50', '40', '30', '20']);
    const idsOf = async (size: string) =>
      (await w.canton.getHoldings(fay))
        .filter((h) => h.amount.eq(amount(size)))
        .map((h) => h.holdingId);
    const [fifty] = await idsOf('50');
    const [forty] = await idsOf('40');
    // The swap's pick is told which holdings are taken, and sets aside what it answers.
    let told: string[] = [];
    w.canton.setAsideForSwap?.(
      fay,
      (taken) => {
        told = [fifty, forty].filter((id): id is string => id !== undefined && taken(id));
        return forty === undefined ? [] : [forty];
      },
      60_000,
    );
    expect(told).toEqual([]);
    await w.canton.submitTransfer({
      commandId: cmd('avoiding'),
      sender: fay,
      receiver: w.bob,
      instrument: w.usd,
      amount: amount('5'),
      avoidHoldingIds: fifty === undefined ? [] : [fifty],
    });
    // Not the 50 (avoided) nor the 40 (set aside): one of the others (the command id picks
    // which of those covering it alone) paid it, with its change.
    const after = await unlockedAmounts(fay);
    expect(after.filter((a) => a === '50' || a === '40')).toEqual(['40', '50']);
    expect([
      ['15', '30', '40', '50'],
      ['20', '25', '40', '50'],
    ]).toContainEqual(after);
  });

  it('makes an offer to a receiver without pre-approval; the receiver accepts it', async () => {
    const outcome = await offerToCarol(w, cmd('offer'), '5');
    const pending = await w.canton.getPendingOffers(w.carol);
    expect(pending.map((o) => o.offerId)).toContain(outcome.offerId);
    expect((await w.canton.getPendingOffers(w.alice)).map((o) => o.offerId)).toContain(
      outcome.offerId,
    );
    expect((await balance(w.canton, w.alice, w.eur)).locked).toBe('5');

    const accepted = await w.canton.acceptOffer({
      commandId: cmd('accept'),
      offerId: outcome.offerId,
      actor: w.carol,
    });
    expect(accepted.offset).toBeGreaterThan(outcome.offset);
    expect((await balance(w.canton, w.carol, w.eur)).total).toBe('5');
    expect((await balance(w.canton, w.alice, w.eur)).locked).toBe('0');
    expect(await w.canton.getPendingOffers(w.carol)).toEqual([]);
    await expectRefusedUnchanged(
      () =>
        w.canton.acceptOffer({ commandId: cmd('again'), offerId: outcome.offerId, actor: w.carol }),
      'offer_not_found',
    );
  });

  it('a rejected or withdrawn offer gives the sender its holdings back; only the right party may act', async () => {
    const offer = async () => (await offerToCarol(w, cmd('offer'), '2')).offerId;
    const before = await balance(w.canton, w.alice, w.eur);

    const first = await offer();
    for (const [choice, actor] of [
      [w.canton.acceptOffer, w.alice],
      [w.canton.acceptOffer, w.bob],
      [w.canton.rejectOffer, w.alice],
      [w.canton.withdrawOffer, w.carol],
    ] as const) {
      await expectRefusedUnchanged(
        () => choice.call(w.canton, { commandId: cmd('intruder'), offerId: first, actor }),
        'not_authorized',
      );
    }
    await w.canton.rejectOffer({ commandId: cmd('reject'), offerId: first, actor: w.carol });
    expect(await balance(w.canton, w.alice, w.eur)).toEqual(before);

    const second = await offer();
    await w.canton.withdrawOffer({ commandId: cmd('withdraw'), offerId: second, actor: w.alice });
    expect(await balance(w.canton, w.alice, w.eur)).toEqual(before);
    expect(await w.canton.getPendingOffers(w.alice)).toEqual([]);
  });

  it('an expired offer stays pending, cannot be accepted, and can be withdrawn', async () => {
    const now = await w.canton.now();
    const executeBefore = new Date(now.getTime() + 60 * 60_000);
    const outcome = await offerToCarol(w, cmd('short-offer'), '1', { executeBefore });
    const offered = (await w.canton.getPendingOffers(w.carol)).find(
      (o) => o.offerId === outcome.offerId,
    );
    expect(offered?.executeBefore).toEqual(executeBefore);
    await w.local.advanceClock(2 * 60 * 60_000);
    expect((await w.canton.now()).getTime()).toBeGreaterThanOrEqual(executeBefore.getTime());
    expect((await w.canton.getPendingOffers(w.carol)).map((o) => o.offerId)).toContain(
      outcome.offerId,
    );
    await expectRefusedUnchanged(
      () =>
        w.canton.acceptOffer({ commandId: cmd('late'), offerId: outcome.offerId, actor: w.carol }),
      'offer_expired',
    );
    await w.canton.withdrawOffer({
      commandId: cmd('withdraw-expired'),
      offerId: outcome.offerId,
      actor: w.alice,
    });
    expect((await balance(w.canton, w.alice, w.eur)).locked).toBe('0');
  });

  it('refuses what it can tell before submitting, changing nothing', async () => {
    const send = (over: Record<string, unknown>) =>
      w.canton.submitTransfer({
        commandId: cmd('refused'),
        sender: w.alice,
        receiver: w.bob,
        instrument: w.usd,
        amount: amount('1'),
        ...over,
      });
    const ghost = `ghost::1220${'0'.repeat(64)}`;
    await expectRefusedUnchanged(() => send({ amount: Amount.ZERO }), 'invalid_amount');
    await expectRefusedUnchanged(
      () => send({ meta: { k: 'x'.repeat(9000) } }),
      'metadata_limit_exceeded',
    );
    await expectRefusedUnchanged(() => send({ sender: ghost }), 'unknown_party');
    await expectRefusedUnchanged(() => send({ receiver: ghost }), 'unknown_party');
    await expectRefusedUnchanged(() => send({ receiver: w.alice }), 'not_authorized');
    await expectRefusedUnchanged(
      () => send({ instrument: { admin: w.usd.admin, id: 'NOPE' } }),
      'unknown_instrument',
    );
    await expectRefusedUnchanged(
      () => send({ instrument: { admin: '', id: 'USD' } }),
      'unknown_instrument',
    );
    await expectRefusedUnchanged(
      () => send({ amount: amount('1000000') }),
      'insufficient_holdings',
    );
    await expectRefusedUnchanged(() => send({ executeBefore: new Date(0) }), 'offer_expired');
    await expectRefusedUnchanged(
      () =>
        w.canton.acceptOffer({
          commandId: cmd('no-offer'),
          offerId: 'no-such-offer',
          actor: w.bob,
        }),
      'offer_not_found',
    );
  });

  it('an external party submits with its own signature; without its key it is not authorized', async () => {
    const withoutKey = await refusal(
      w.canton.submitTransfer({
        commandId: cmd('external-unsigned'),
        sender: w.wallet,
        receiver: w.bob,
        instrument: w.usd,
        amount: amount('1'),
      }),
    );
    expect(withoutKey.code).toBe('not_authorized');

    const signing = await w.open({
      externalSigners: (party) =>
        party === w.wallet
          ? {
              publicKey: ed25519.getPublicKey(w.walletSecret),
              sign: async (message) => ed25519.sign(message, w.walletSecret),
            }
          : undefined,
    });
    const outcome = await signing.submitTransfer({
      commandId: cmd('external'),
      sender: w.wallet,
      receiver: w.bob,
      instrument: w.usd,
      amount: amount('3'),
    });
    expect(outcome.kind).toBe('direct');
    expect((await balance(signing, w.wallet, w.usd)).total).toBe('17');
  });

  it('a resubmitted command returns its first outcome, in this process and in another one', async () => {
    const command = {
      commandId: cmd('dedup'),
      sender: w.alice,
      receiver: w.carol,
      instrument: w.usd,
      amount: amount('4'),
    };
    const first = await w.canton.submitTransfer(command);
    const end = await w.canton.ledgerEnd();
    expect(await w.canton.submitTransfer(command)).toEqual(first);

    // A new process knows nothing of the command: Canton refuses the duplicate, and the adapter
    // answers the first outcome from the completion.
    const restarted = await w.open();
    expect(await restarted.submitTransfer(command)).toEqual(first);
    expect(await w.canton.ledgerEnd()).toBe(end);
    expect(await w.canton.getPendingOffers(w.carol)).toHaveLength(1);

    const completion = await restarted.lookupCommand(command.commandId);
    expect(completion).toMatchObject({
      commandId: command.commandId,
      updateId: first.updateId,
      offset: first.offset,
    });
    expect(await w.canton.lookupCommand(command.commandId)).toEqual(completion);
    expect(await restarted.lookupCommand(cmd('never-sent'))).toBeNull();
  });

  it('after a restart, a committed command is answered even when its own commit now refuses it', async () => {
    // Everything alice holds of EUR, to carol as an offer, then accepted.
    const all = (await balance(w.canton, w.alice, w.eur)).total;
    const transfer = {
      commandId: cmd('all-of-it'),
      sender: w.alice,
      receiver: w.carol,
      instrument: w.eur,
      amount: amount(all),
    };
    const offered = await w.canton.submitTransfer(transfer);
    if (offered.kind !== 'offer') throw new Error('expected an offer');
    const accept = { commandId: cmd('accept-all'), offerId: offered.offerId, actor: w.carol };
    const accepted = await w.canton.acceptOffer(accept);
    const end = await w.canton.ledgerEnd();

    const restarted = await w.open();
    // Nothing left to spend and no offer left to accept: only the completions tell.
    expect(await restarted.submitTransfer(transfer)).toEqual(offered);
    expect(await restarted.acceptOffer(accept)).toEqual(accepted);
    expect(await w.canton.ledgerEnd()).toBe(end);
    await expectRefusedUnchanged(
      () => restarted.acceptOffer({ ...accept, commandId: cmd('accept-again') }),
      'offer_not_found',
    );
  });

  it('the active-contracts channel (for lists beyond the HTTP limit) lists what HTTP lists', async () => {
    const holdings = await w.canton.getHoldings(w.alice);
    const streamed = await webSocketList<{
      contractEntry?: { JsActiveContract?: { createdEvent: { contractId: string } } };
    }>({
      ledgerApiUrl: w.server.ledgerApiUrl,
      path: '/v2/state/active-contracts',
      token: await tokenOf('poolparty'),
      request: activeContractsRequest(
        await w.canton.ledgerEnd(),
        { kind: 'parties', parties: [w.alice] },
        HOLDING_INTERFACE_ID,
      ),
    });
    const ids = streamed.flatMap((item) => {
      const id = item.contractEntry?.JsActiveContract?.createdEvent.contractId;
      return id === undefined ? [] : [id];
    });
    expect(ids.sort()).toEqual(holdings.map((h) => h.holdingId).sort());
  });

  it('reads the open mining round and the traffic price from the scan proxy', async () => {
    const round = await w.canton.openMiningRound();
    const local = await w.local.openMiningRound();
    expect(round.round).toBe(local.round);
    expect(round.amuletPriceUsd).toEqual(local.amuletPriceUsd);
    const traffic = await w.canton.trafficParameters();
    expect(traffic.extraTrafficPriceUsdPerMb).toEqual(
      (await w.local.trafficParameters()).extraTrafficPriceUsdPerMb,
    );
    expect(traffic.transferBytes).toBeGreaterThan(0);
  });

  it('after close every call is refused with closed', async () => {
    const other = await w.open();
    await other.close();
    expect((await refusal(other.ledgerEnd())).code).toBe('closed');
  });
});
