/**
 * A DvP prepared with two acting parties, both external: one transfer from each. A wallet's
 * visualizer shows both legs with their amounts, the SDK recomputes the devnet's hash, and the
 * transaction executes only with a valid signature by each party's own key: a changed byte, a
 * missing signature or another key's signature is refused with nothing moved. Execution is all or
 * nothing: a leg that cannot commit refuses every leg.
 */
import { hashPreparedTransaction } from '@canton-network/core-tx-visualizer';
import { TopologyController } from '@canton-network/wallet-sdk';
import { Amount, generateKeyPair, type Instrument } from '@poolparty/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { instructionCommand, transferCommand } from './support/commands.js';
import { expectCantonError, expectSchema, sharedWorld } from './support/server.js';
import {
  executeRequest,
  externalParty,
  type Prepared,
  partySignature,
  type Signer,
} from './support/signing.js';
import { shownLegs } from './support/visualizer.js';

const PREPARE = '/v2/interactive-submission/prepare';
const EXECUTE = '/v2/interactive-submission/executeAndWait';

describe('a DvP prepared for two external parties', () => {
  const world = sharedWorld();
  let buyer: Signer;
  const sign2 = (prepared: Prepared) => [
    partySignature(world.wallet.partyId, prepared.preparedTransactionHash, world.wallet),
    partySignature(buyer.partyId, prepared.preparedTransactionHash, buyer),
  ];

  /** Each party's unlocked amount of each instrument, in whole text. */
  const balances = async () => {
    const of = async (party: string, instrument: Instrument) => {
      const holdings = await world.ledger.getHoldings(party);
      const mine = holdings.filter((h) => h.instrument.id === instrument.id && h.lock === null);
      return Amount.sum(mine.map((h) => h.amount)).toString();
    };
    return {
      sellerAmulet: await of(world.wallet.partyId, world.amulet),
      sellerUsdcx: await of(world.wallet.partyId, world.usdcx),
      buyerAmulet: await of(buyer.partyId, world.amulet),
      buyerUsdcx: await of(buyer.partyId, world.usdcx),
      end: await world.ledger.ledgerEnd(),
    };
  };

  const prepareDvp = async (commandId: string, buyerPays = '5') => {
    const request = {
      commandId,
      actAs: [world.wallet.partyId, buyer.partyId],
      commands: [
        transferCommand({
          sender: world.wallet.partyId,
          receiver: buyer.partyId,
          instrument: world.amulet,
          amount: '10',
        }),
        transferCommand({
          sender: buyer.partyId,
          receiver: world.wallet.partyId,
          instrument: world.usdcx,
          amount: buyerPays,
        }),
      ],
    };
    expectSchema('ledger', 'JsPrepareSubmissionRequest', request);
    const answer = await world.post(PREPARE, request);
    expect(answer.status).toBe(200);
    expectSchema('ledger', 'JsPrepareSubmissionResponse', answer.body);
    return answer.body as Prepared;
  };

  beforeAll(async () => {
    buyer = await externalParty(world.ledger, 'buyer');
    await world.ledger.mint({
      owner: buyer.partyId,
      instrument: world.usdcx,
      amount: Amount.of(20),
    });
    // Both receivers pre-approve, so each leg is a direct transfer the DvP completes.
    await world.ledger.setPreapproval(buyer.partyId, world.amulet, true);
    await world.ledger.setPreapproval(world.wallet.partyId, world.usdcx, true);
  });

  it('shows both legs with their parties, instruments and amounts in the visualizer', async () => {
    const prepared = await prepareDvp('dvp-shown');
    const legs = shownLegs(prepared.preparedTransaction);
    expect(
      legs.map(({ sender, receiver, instrument, amount, actingParties }) => ({
        sender,
        receiver,
        instrument,
        amount,
        actingParties,
      })),
    ).toEqual([
      {
        sender: `party:${world.wallet.partyId}`,
        receiver: `party:${buyer.partyId}`,
        instrument: `party:${world.amulet.admin} text:Amulet`,
        amount: 'numeric:10.0000000000',
        actingParties: [world.wallet.partyId],
      },
      {
        sender: `party:${buyer.partyId}`,
        receiver: `party:${world.wallet.partyId}`,
        instrument: `party:${world.usdcx.admin} text:USDCx`,
        amount: 'numeric:5.0000000000',
        actingParties: [buyer.partyId],
      },
    ]);
  });

  it('has the hash the wallet SDK and the visualizer recompute', async () => {
    const prepared = await prepareDvp('dvp-hash');
    expect(await hashPreparedTransaction(prepared.preparedTransaction)).toBe(
      prepared.preparedTransactionHash,
    );
    expect(await TopologyController.createTransactionHash(prepared.preparedTransaction)).toBe(
      prepared.preparedTransactionHash,
    );
  });

  it('refuses one changed byte, with nothing moved', async () => {
    const prepared = await prepareDvp('dvp-tampered', '5.5');
    const signatures = sign2(prepared);
    const bytes = Buffer.from(prepared.preparedTransaction, 'base64');
    const at = bytes.indexOf('5.5000000000');
    expect(at).toBeGreaterThan(0);
    bytes[at] = '4'.charCodeAt(0);
    const before = await balances();
    const tampered = { ...prepared, preparedTransaction: bytes.toString('base64') };
    const answer = await world.post(EXECUTE, executeRequest(tampered, signatures, 's-1'));
    expectCantonError(answer, 400, 'INVALID_ARGUMENT');
    expect(answer.body.cause).toContain('no valid signature of the prepared transaction hash');
    expect(await balances()).toEqual(before);
  });

  it('refuses a missing signature, with nothing moved', async () => {
    const prepared = await prepareDvp('dvp-missing');
    const before = await balances();
    const [sellerOnly] = sign2(prepared);
    const answer = await world.post(EXECUTE, executeRequest(prepared, [sellerOnly], 's-2'));
    expectCantonError(answer, 400, 'INVALID_ARGUMENT');
    expect(answer.body.cause).toContain(`no signature by ${buyer.partyId}`);
    expect(await balances()).toEqual(before);
    expect(await world.ledger.lookupCommand('dvp-missing')).toBeNull();
  });

  it('refuses another key’s signature, with nothing moved', async () => {
    const prepared = await prepareDvp('dvp-foreign');
    const before = await balances();
    const [seller] = sign2(prepared);
    const foreign = partySignature(
      buyer.partyId,
      prepared.preparedTransactionHash,
      generateKeyPair(),
    );
    const answer = await world.post(EXECUTE, executeRequest(prepared, [seller, foreign], 's-3'));
    expectCantonError(answer, 400, 'INVALID_ARGUMENT');
    expect(answer.body.context.parties).toBe(buyer.partyId);
    const sellersKey = partySignature(
      buyer.partyId,
      prepared.preparedTransactionHash,
      world.wallet,
    );
    const again = await world.post(EXECUTE, executeRequest(prepared, [seller, sellersKey], 's-4'));
    expectCantonError(again, 400, 'INVALID_ARGUMENT');
    expect(await balances()).toEqual(before);
  });

  it('executes with both signatures: both legs move', async () => {
    const prepared = await prepareDvp('dvp-signed');
    const before = await balances();
    const body = executeRequest(prepared, sign2(prepared), 's-5');
    expectSchema('ledger', 'JsExecuteSubmissionAndWaitRequest', body);
    const answer = await world.post(EXECUTE, body);
    expect(answer.status).toBe(200);
    expectSchema('ledger', 'ExecuteSubmissionAndWaitResponse', answer.body);
    const after = await balances();
    expect(Amount.parse(after.sellerAmulet)).toEqual(
      Amount.parse(before.sellerAmulet).sub(Amount.of(10)),
    );
    expect(Amount.parse(after.buyerAmulet)).toEqual(
      Amount.parse(before.buyerAmulet).add(Amount.of(10)),
    );
    expect(Amount.parse(after.sellerUsdcx)).toEqual(
      Amount.parse(before.sellerUsdcx).add(Amount.of(5)),
    );
    expect(Amount.parse(after.buyerUsdcx)).toEqual(
      Amount.parse(before.buyerUsdcx).sub(Amount.of(5)),
    );
    // One transaction, one update: both legs' transfers commit together, as on a participant.
    const committed = await world.ledger.lookupCommand('dvp-signed');
    expect(committed?.updateId).toBe(answer.body.updateId);
    expect(await world.ledger.lookupCommand('dvp-signed/1')).toBeNull();
    const update = world.ledger.updateAt(committed?.offset ?? 0);
    expect(update?.events.map((event) => event.kind)).toEqual(['transfer', 'transfer']);
    expect(after.end).toBe(before.end + 1);
  });

  it('refuses every leg when one cannot commit, with nothing moved', async () => {
    const prepared = await prepareDvp('dvp-short', '1000');
    const before = await balances();
    const answer = await world.post(EXECUTE, executeRequest(prepared, sign2(prepared), 's-6'));
    expectCantonError(answer, 400, 'DAML_FAILURE');
    expect(answer.body.context.error_id).toBe('insufficient_holdings');
    expect(await balances()).toEqual(before);
    expect(await world.ledger.lookupCommand('dvp-short')).toBeNull();
  });

  it('runs two executions that together overspend one at a time: one moves, one moves nothing', async () => {
    const [first, second] = [
      await prepareDvp('dvp-race-1', '10'),
      await prepareDvp('dvp-race-2', '10'),
    ];
    const before = await balances();
    expect(Amount.parse(before.buyerUsdcx).lt(Amount.of(20))).toBe(true);
    // Slow submissions leave the second execution time to arrive while the first commits.
    world.ledger.setFaults({ latencyMs: 50 });
    const answers = await Promise.all(
      [first, second].map((prepared, i) =>
        world.post(EXECUTE, executeRequest(prepared, sign2(prepared), `race-${i}`)),
      ),
    ).finally(() => world.ledger.setFaults({}));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    const after = await balances();
    expect(Amount.parse(after.sellerAmulet)).toEqual(
      Amount.parse(before.sellerAmulet).sub(Amount.of(10)),
    );
    expect(Amount.parse(after.buyerUsdcx)).toEqual(
      Amount.parse(before.buyerUsdcx).sub(Amount.of(10)),
    );
  });

  it('refuses to prepare a leg whose acting party is not submitting', async () => {
    const answer = await world.post(PREPARE, {
      commandId: 'dvp-unsubmitted',
      actAs: [world.wallet.partyId],
      commands: [
        transferCommand({
          sender: buyer.partyId,
          receiver: world.wallet.partyId,
          instrument: world.usdcx,
          amount: '1',
        }),
      ],
    });
    expectCantonError(answer, 400, 'DAML_AUTHORIZATION_ERROR');
  });

  it('refuses to prepare more legs than a prepared transaction holds', async () => {
    const leg = instructionCommand('Accept', 'offer-none');
    const answer = await world.post(PREPARE, {
      commandId: 'dvp-many',
      actAs: [world.wallet.partyId],
      commands: Array.from({ length: 17 }, () => leg),
    });
    expectCantonError(answer, 400, 'INVALID_ARGUMENT');
    expect(answer.body.cause).toContain('1 to 16 commands');
  });
});

describe('a DvP of two TransferInstruction_Accept legs, one by each external receiver', () => {
  const world = sharedWorld();
  let seller: Signer;
  let buyer: Signer;
  let offers: { amulet: string; usdcx: string };

  const offer = async (commandId: string, from: Signer, to: Signer, instrument: Instrument) => {
    const outcome = await world.ledger.submitTransfer({
      commandId,
      sender: from.partyId,
      receiver: to.partyId,
      instrument,
      amount: Amount.of(3),
    });
    if (outcome.kind !== 'offer') throw new Error('expected an offer');
    return outcome.offerId;
  };
  const acceptBoth = async (commandId: string) => {
    const answer = await world.post(PREPARE, {
      commandId,
      actAs: [buyer.partyId, seller.partyId],
      commands: [
        instructionCommand('Accept', offers.amulet),
        instructionCommand('Accept', offers.usdcx),
      ],
    });
    expect(answer.status).toBe(200);
    return answer.body as Prepared;
  };
  const signBoth = (prepared: Prepared) => [
    partySignature(buyer.partyId, prepared.preparedTransactionHash, buyer),
    partySignature(seller.partyId, prepared.preparedTransactionHash, seller),
  ];
  const held = async (party: Signer) =>
    (await world.ledger.getHoldings(party.partyId))
      .map((h) => `${h.instrument.id} ${h.amount}`)
      .sort();

  beforeAll(async () => {
    seller = await externalParty(world.ledger, 'seller');
    buyer = await externalParty(world.ledger, 'buyer');
    await world.ledger.mint({
      owner: seller.partyId,
      instrument: world.amulet,
      amount: Amount.of(3),
    });
    await world.ledger.mint({
      owner: buyer.partyId,
      instrument: world.usdcx,
      amount: Amount.of(3),
    });
    offers = {
      amulet: await offer('offer-amulet', seller, buyer, world.amulet),
      usdcx: await offer('offer-usdcx', buyer, seller, world.usdcx),
    };
  });

  it('shows each leg’s instruction, its acting receiver and the holding it creates', async () => {
    const prepared = await acceptBoth('accepts-shown');
    const legs = shownLegs(prepared.preparedTransaction);
    expect(
      legs.map(({ choiceId, contractId, actingParties, creates }) => ({
        choiceId,
        contractId,
        actingParties,
        creates,
      })),
    ).toEqual([
      {
        choiceId: 'TransferInstruction_Accept',
        contractId: offers.amulet,
        actingParties: [buyer.partyId],
        creates: { owner: `party:${buyer.partyId}`, amount: 'numeric:3.0000000000' },
      },
      {
        choiceId: 'TransferInstruction_Accept',
        contractId: offers.usdcx,
        actingParties: [seller.partyId],
        creates: { owner: `party:${seller.partyId}`, amount: 'numeric:3.0000000000' },
      },
    ]);
    expect(await hashPreparedTransaction(prepared.preparedTransaction)).toBe(
      prepared.preparedTransactionHash,
    );
  });

  it('refuses every leg when one instruction is gone, with nothing moved', async () => {
    const prepared = await acceptBoth('accepts-withdrawn');
    await world.ledger.withdrawOffer({
      commandId: 'withdraw-usdcx',
      offerId: offers.usdcx,
      actor: buyer.partyId,
    });
    const before = [await held(seller), await held(buyer)];
    const answer = await world.post(EXECUTE, executeRequest(prepared, signBoth(prepared), 'a-1'));
    expectCantonError(answer, 404, 'CONTRACT_NOT_FOUND');
    expect([await held(seller), await held(buyer)]).toEqual(before);
    expect((await world.ledger.getPendingOffers(buyer.partyId)).map((o) => o.offerId)).toContain(
      offers.amulet,
    );
    offers = { ...offers, usdcx: await offer('offer-usdcx-2', buyer, seller, world.usdcx) };
  });

  it('executes with both receivers’ signatures: both instructions settle', async () => {
    const prepared = await acceptBoth('accepts-signed');
    const answer = await world.post(EXECUTE, executeRequest(prepared, signBoth(prepared), 'a-2'));
    expect(answer.status).toBe(200);
    expect(await held(seller)).toEqual(['USDCx 3']);
    expect(await held(buyer)).toEqual(['Amulet 3']);
  });
});
