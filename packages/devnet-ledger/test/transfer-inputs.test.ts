/**
 * A Token Standard transfer submitted as a wallet submits it: naming its input holdings
 * (`inputHoldingCids`), which are then exactly the holdings archived, or to its own sender (the
 * wallet SDK's merge), which Splice runs as a self-transfer.
 */
import { Amount } from '@poolparty/core';
import { decodeTransaction } from '@poolparty/ledger/canton/wire';
import { beforeAll, describe, expect, it } from 'vitest';
import { holdingUpdatesRequest, transferSubmission } from './support/commands.js';
import { expectCantonError, expectSchema, sharedWorld } from './support/server.js';

const SUBMIT = '/v2/commands/submit-and-wait-for-transaction';

interface Exercised {
  readonly contractId: string;
  readonly choice: string;
  readonly consuming: boolean;
  readonly choiceArgument: { readonly transfer?: object };
}

/** The exercised events of a ledger-effects transaction (an archive is a consuming one). */
function exercisedOf(transaction: { events: object[] }): Exercised[] {
  return transaction.events.flatMap((event) => {
    const exercised = (event as { ExercisedEvent?: Exercised }).ExercisedEvent;
    return exercised ? [exercised] : [];
  });
}

describe('transfers naming their inputs, and to oneself', () => {
  const world = sharedWorld();
  /** The treasury's USDCx holdings: 500 (seeded), 40 and 10. */
  let held: { readonly holdingId: string; readonly amount: Amount }[];
  beforeAll(async () => {
    for (const amount of [40, 10]) {
      await world.ledger.mint({
        owner: world.treasury,
        instrument: world.usdcx,
        amount: Amount.of(amount),
      });
    }
    held = (await world.ledger.getHoldings(world.treasury)).filter(
      (h) => h.instrument.id === 'USDCx',
    );
  });

  const transfer = (commandId: string, receiver: string, amount: string, inputs: string[]) =>
    world.post(
      SUBMIT,
      transferSubmission(world, commandId, {
        receiver,
        instrument: world.usdcx,
        amount,
        inputHoldingCids: inputs,
      }),
    );

  it('archives exactly the named holding, not the largest the ledger would pick', async () => {
    const ten = held.find((h) => h.amount.eq(Amount.of(10)));
    const answer = await transfer('named-10', world.wallet.partyId, '6', [ten?.holdingId ?? '']);
    expect(answer.status).toBe(200);
    expectSchema('ledger', 'JsSubmitAndWaitForTransactionResponse', answer.body);
    const delta = world.ledger.holdingChangesAt(answer.body.transaction.offset);
    expect(delta?.archived.map((h) => h.holdingId)).toEqual([ten?.holdingId]);
    const amounts = (await world.ledger.getHoldings(world.treasury))
      .filter((h) => h.instrument.id === 'USDCx' && h.lock === null)
      .map((h) => h.amount.toString())
      .sort();
    expect(amounts).toEqual(['4', '40', '500']);
  });

  it('refuses inputs that do not cover the amount or are not the sender’s, changing nothing', async () => {
    const forty = held.find((h) => h.amount.eq(Amount.of(40)));
    const end = await world.ledger.ledgerEnd();
    const short = await transfer('named-short', world.pool, '41', [forty?.holdingId ?? '']);
    expectCantonError(short, 400, 'DAML_FAILURE');
    expect(short.body.context.error_id).toBe('insufficient_holdings');
    const walletHolding = (await world.ledger.getHoldings(world.wallet.partyId))[0];
    const foreign = await transfer('named-foreign', world.pool, '1', [
      walletHolding?.holdingId ?? '',
    ]);
    expectCantonError(foreign, 400, 'DAML_FAILURE');
    expect(foreign.body.context.error_id).toBe('invalid_inputs');
    const amuletHolding = (await world.ledger.getHoldings(world.treasury)).find(
      (h) => h.instrument.id === 'Amulet',
    );
    const otherInstrument = await transfer('named-amulet', world.pool, '1', [
      amuletHolding?.holdingId ?? '',
    ]);
    expect(otherInstrument.body.context.error_id).toBe('invalid_inputs');
    expect(await world.ledger.ledgerEnd()).toBe(end);
  });

  it('merges the named holdings into one when the receiver is the sender', async () => {
    // The unlocked ones: the 6 offered to the wallet stay locked for its offer.
    const before = (await world.ledger.getHoldings(world.treasury)).filter(
      (h) => h.instrument.id === 'USDCx' && h.lock === null,
    );
    const total = before.reduce((sum, h) => sum.add(h.amount), Amount.ZERO);
    const answer = await transfer(
      'merge',
      world.treasury,
      total.toString(),
      before.map((h) => h.holdingId),
    );
    expect(answer.body.cause).toBeUndefined();
    expectSchema('ledger', 'JsSubmitAndWaitForTransactionResponse', answer.body);
    // The factory's exercise to oneself, as a participant shows a merge; no port event.
    const exercised = exercisedOf(answer.body.transaction);
    expect(exercised.filter((e) => e.choice === 'TransferFactory_Transfer')).toMatchObject([
      {
        choice: 'TransferFactory_Transfer',
        choiceArgument: { transfer: { sender: world.treasury, receiver: world.treasury } },
      },
    ]);
    expect(decodeTransaction(answer.body.transaction).events).toEqual([]);
    const archived = exercised.filter((e) => e.consuming).map((e) => e.contractId);
    expect(archived.sort()).toEqual(before.map((h) => h.holdingId).sort());
    const after = (await world.ledger.getHoldings(world.treasury)).filter(
      (h) => h.instrument.id === 'USDCx' && h.lock === null,
    );
    expect(after.map((h) => h.amount.toString())).toEqual([total.toString()]);
    // The owner's update stream has it too: a wallet's cached holdings follow the stream.
    const stream = await world.post(
      '/v2/updates',
      holdingUpdatesRequest(world.treasury, answer.body.transaction.offset - 1),
    );
    expectSchema('ledger', 'JsGetUpdatesResponse', stream.body[0]);
    expect(stream.body[0].update.Transaction.value.updateId).toBe(answer.body.transaction.updateId);
  });
});
