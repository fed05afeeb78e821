/**
 * Submitting Token Standard commands as the service's user, Canton's deduplication and
 * refusals, completions, the active contracts and the HTTP update stream.
 */
import { Amount } from '@poolparty/core';
import type { TransferOffer } from '@poolparty/ledger';
import {
  decodeHolding,
  decodeTransaction,
  decodeTransferInstruction,
} from '@poolparty/ledger/canton/wire';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  instructionCommand,
  pendingInstructionOf,
  submission,
  transferCommand,
  transferSubmission,
} from './support/commands.js';
import { expectCantonError, expectSchema, sharedWorld } from './support/server.js';

const SUBMIT = '/v2/commands/submit-and-wait-for-transaction';
/** The Holding interface with its view, and with each contract's created-event blob if asked. */
const holdingFilter = (includeCreatedEventBlob: boolean) => ({
  cumulative: [
    {
      identifierFilter: {
        InterfaceFilter: {
          value: {
            interfaceId: '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding',
            includeInterfaceView: true,
            includeCreatedEventBlob,
          },
        },
      },
    },
  ],
});
const HOLDING_FILTER = holdingFilter(false);
const INSTRUCTION_FILTER = {
  cumulative: [
    {
      identifierFilter: {
        InterfaceFilter: {
          value: {
            interfaceId:
              '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction',
            includeInterfaceView: true,
          },
        },
      },
    },
  ],
};

describe('command submission', () => {
  const world = sharedWorld();

  /** `actor` exercises `choice` on the transfer instruction `offerId`. */
  const instruct = (
    commandId: string,
    actor: string,
    choice: 'Accept' | 'Reject' | 'Withdraw',
    offerId: string,
  ) => world.post(SUBMIT, submission(commandId, [actor], instructionCommand(choice, offerId)));

  it('transfers directly to a receiver that pre-approves, answering the transaction', async () => {
    const answer = await world.post(
      SUBMIT,
      transferSubmission(world, 'direct-1', { amount: '25.0000000000' }),
    );
    expect(answer.status).toBe(200);
    expectSchema('ledger', 'JsSubmitAndWaitForTransactionResponse', answer.body);
    const update = decodeTransaction(answer.body.transaction);
    expect(update.events).toMatchObject([
      { kind: 'transfer', sender: world.treasury, receiver: world.pool, offerId: null },
    ]);
    expect((await world.ledger.getHoldings(world.pool)).map((h) => h.amount.toString())).toEqual([
      '25',
    ]);
    expect(answer.body.transaction.offset).toBe(await world.ledger.ledgerEnd());
  });

  it('answers the ACS delta the submitters see when the request names no format', async () => {
    const { commands } = transferSubmission(world, 'direct-delta', { amount: '2' });
    const answer = await world.post(SUBMIT, { commands });
    expect(answer.status).toBe(200);
    expectSchema('ledger', 'JsSubmitAndWaitForTransactionResponse', answer.body);
    const kinds = answer.body.transaction.events.map((event: object) => Object.keys(event)[0]);
    expect(kinds).not.toContain('ExercisedEvent');
    expect(kinds).toContain('ArchivedEvent');
    expect(kinds).toContain('CreatedEvent');
    // The treasury sees its spent holding archived and its change created, not the pool's holding.
    const created = answer.body.transaction.events.flatMap(
      (event: { CreatedEvent?: { signatories: string[] } }) =>
        event.CreatedEvent ? [event.CreatedEvent] : [],
    );
    for (const event of created) expect(event.signatories).toContain(world.treasury);
  });

  it('makes an offer to a receiver without pre-approval, which the receiver accepts', async () => {
    const offered = await world.post(
      SUBMIT,
      transferSubmission(world, 'offer-1', { instrument: world.usdcx, amount: '7.5' }),
    );
    expect(offered.status).toBe(200);
    const offerId = pendingInstructionOf(offered.body.transaction);
    expect(offerId).toBeDefined();
    const pending = await world.ledger.getPendingOffers(world.pool);
    expect(pending.map((o) => o.offerId)).toEqual([offerId]);
    const accepted = await instruct('accept-1', world.pool, 'Accept', offerId as string);
    expect(accepted.status).toBe(200);
    const offerOf = (id: string) => pending.find((o) => o.offerId === id);
    expect(decodeTransaction(accepted.body.transaction, { offerOf }).events).toMatchObject([
      { kind: 'transfer', offerId, receiver: world.pool },
    ]);
    expect(await world.ledger.getPendingOffers(world.pool)).toEqual([]);
  });

  it('rejects and withdraws offers for the receiver and the sender', async () => {
    const offer = async (commandId: string) => {
      const answer = await world.post(
        SUBMIT,
        transferSubmission(world, commandId, { instrument: world.usdcx }),
      );
      return pendingInstructionOf(answer.body.transaction) as string;
    };
    const offerOf = (id: string) => offers.get(id);
    const offers = new Map<string, TransferOffer>();
    const remember = async (offerId: string) => {
      for (const o of await world.ledger.getPendingOffers(world.pool)) offers.set(o.offerId, o);
      return offerId;
    };
    // The receiver rejects one offer, the sender withdraws another.
    const ends = [
      {
        id: 'reject-1',
        actor: world.pool,
        choice: 'Reject',
        offer: 'offer-r',
        kind: 'offer_rejected',
      },
      {
        id: 'withdraw-1',
        actor: world.treasury,
        choice: 'Withdraw',
        offer: 'offer-w',
        kind: 'offer_withdrawn',
      },
    ] as const;
    for (const end of ends) {
      const ended = await instruct(
        end.id,
        end.actor,
        end.choice,
        await remember(await offer(end.offer)),
      );
      expect(decodeTransaction(ended.body.transaction, { offerOf }).events).toMatchObject([
        { kind: end.kind },
      ]);
    }
  });

  it('refuses a resubmitted command id as DUPLICATE_COMMAND with the completion offset', async () => {
    const body = transferSubmission(world, 'dedup-1');
    const first = await world.post(SUBMIT, body);
    expect(first.status).toBe(200);
    const endBefore = await world.ledger.ledgerEnd();
    const again = await world.post(SUBMIT, body);
    expectCantonError(again, 409, 'DUPLICATE_COMMAND');
    expect(again.body.context.completion_offset).toBe(String(first.body.transaction.offset));
    expect(await world.ledger.ledgerEnd()).toBe(endBefore);
  });

  it('refuses a malformed transaction format before submitting anything', async () => {
    const body = transferSubmission(world, 'bad-format');
    const answer = await world.post(SUBMIT, {
      ...body,
      transactionFormat: {
        ...body.transactionFormat,
        transactionShape: 'TRANSACTION_SHAPE_UNSPECIFIED',
      },
    });
    expectCantonError(answer, 400, 'INVALID_ARGUMENT');
    expect(await world.ledger.lookupCommand('bad-format')).toBeNull();
  });

  it('refuses acting as an external party, or as a party the submission does not transfer from', async () => {
    const external = await world.post(
      SUBMIT,
      transferSubmission(world, 'ext-1', { sender: world.wallet.partyId }),
    );
    expectCantonError(external, 403, 'PERMISSION_DENIED');
    const notSender = await world.post(
      SUBMIT,
      submission(
        'not-sender',
        [world.pool],
        transferCommand({
          sender: world.treasury,
          receiver: world.pool,
          instrument: world.amulet,
          amount: '1',
        }),
      ),
    );
    expectCantonError(notSender, 400, 'DAML_AUTHORIZATION_ERROR');
  });

  it('answers the ledger’s refusals with Canton codes', async () => {
    const tooMuch = await world.post(
      SUBMIT,
      transferSubmission(world, 'too-much', { amount: '1000000' }),
    );
    expectCantonError(tooMuch, 400, 'DAML_FAILURE');
    expect(tooMuch.body.context.error_id).toBe('insufficient_holdings');
    const noOffer = await instruct('no-offer', world.pool, 'Accept', 'no-such-offer');
    expectCantonError(noOffer, 404, 'CONTRACT_NOT_FOUND');
    const wrongFactory = await world.post(
      SUBMIT,
      transferSubmission(world, 'bad-factory', { factoryId: 'not-a-factory' }),
    );
    expectCantonError(wrongFactory, 404, 'CONTRACT_NOT_FOUND');
    const malformed = await world.post(SUBMIT, {
      commands: { commandId: 'x', actAs: [world.treasury], commands: [] },
    });
    expectCantonError(malformed, 400, 'INVALID_ARGUMENT');
  });

  it('refuses accepting an expired offer, which stays pending', async () => {
    const offered = await world.post(
      SUBMIT,
      transferSubmission(world, 'offer-exp', {
        instrument: world.usdcx,
        amount: '2',
        executeBefore: new Date((await world.ledger.now()).getTime() + 60_000),
      }),
    );
    const offerId = pendingInstructionOf(offered.body.transaction) as string;
    await world.ledger.advanceClock(120_000);
    const late = await instruct('accept-late', world.pool, 'Accept', offerId);
    expectCantonError(late, 400, 'DAML_FAILURE');
    expect(late.body.context.error_id).toBe('offer_expired');
    expect((await world.ledger.getPendingOffers(world.pool)).map((o) => o.offerId)).toContain(
      offerId,
    );
  });

  it('reports completions of the parties’ commands', async () => {
    const answer = await world.post('/v2/commands/completions', {
      userId: 'poolparty',
      parties: [world.pool],
      beginExclusive: 0,
    });
    expect(answer.status).toBe(200);
    for (const item of answer.body) expectSchema('ledger', 'CompletionStreamResponse', item);
    const ids = answer.body.map(
      (i: { completionResponse: { Completion: { value: { commandId: string } } } }) =>
        i.completionResponse.Completion.value.commandId,
    );
    expect(ids).toContain('accept-1');
    expect(ids).toContain('reject-1');
    expect(ids).not.toContain('direct-1');
  });
});

describe('active contracts and the HTTP update stream', () => {
  const world = sharedWorld();
  let offerId: string;
  beforeAll(async () => {
    const outcome = await world.ledger.submitTransfer({
      commandId: 'acs-offer',
      sender: world.treasury,
      receiver: world.pool,
      instrument: world.usdcx,
      amount: Amount.of(3),
    });
    offerId = (outcome as { offerId: string }).offerId;
  });

  /** The active contracts `party` sees through `filter` as of `offset`. */
  const activeContracts = (offset: number, party: string, filter: unknown) =>
    world.post('/v2/state/active-contracts', {
      activeAtOffset: offset,
      eventFormat: { filtersByParty: { [party]: filter } },
    });
  /** Every transaction up to `end`, with ledger effects, as `eventFormat` selects its events. */
  const updatesTo = (end: number, eventFormat: unknown) =>
    world.post('/v2/updates', {
      beginExclusive: 0,
      endInclusive: end,
      updateFormat: {
        includeTransactions: { eventFormat, transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' },
      },
    });

  it('lists a party’s holdings and pending instructions with their interface views', async () => {
    const end = await world.ledger.ledgerEnd();
    const answer = await activeContracts(end, world.treasury, {
      cumulative: [...HOLDING_FILTER.cumulative, ...INSTRUCTION_FILTER.cumulative],
    });
    expect(answer.status).toBe(200);
    for (const item of answer.body) expectSchema('ledger', 'JsGetActiveContractsResponse', item);
    const events = answer.body.map(
      (i: { contractEntry: { JsActiveContract: { createdEvent: never } } }) =>
        i.contractEntry.JsActiveContract.createdEvent,
    );
    const holdings = events.map(decodeHolding).filter((h: unknown) => h !== null);
    const expected = await world.ledger.getHoldings(world.treasury);
    expect(holdings.map((h: { holdingId: string }) => h.holdingId).sort()).toEqual(
      expected.map((h) => h.holdingId).sort(),
    );
    const instructions = events.map(decodeTransferInstruction).filter((o: unknown) => o !== null);
    expect(instructions.map((o: { offerId: string }) => o.offerId)).toEqual([offerId]);
  });

  it('shows only what the interface filter asks for, and nothing of other parties', async () => {
    const end = await world.ledger.ledgerEnd();
    const holdingsOnly = await activeContracts(end, world.wallet.partyId, HOLDING_FILTER);
    const owners = holdingsOnly.body.map(
      (i: { contractEntry: { JsActiveContract: { createdEvent: never } } }) =>
        decodeHolding(i.contractEntry.JsActiveContract.createdEvent)?.owner,
    );
    expect(owners).toEqual([world.wallet.partyId]);
  });

  it('includes created-event blobs only when a filter asks for them', async () => {
    const end = await world.ledger.ledgerEnd();
    const events = async (filters: unknown) => {
      const answer = await activeContracts(end, world.wallet.partyId, filters);
      return answer.body.map(
        (i: {
          contractEntry: { JsActiveContract: { createdEvent: { createdEventBlob?: string } } };
        }) => i.contractEntry.JsActiveContract.createdEvent,
      );
    };
    for (const event of await events(holdingFilter(true)))
      expect(event.createdEventBlob).toMatch(/^[A-Za-z0-9+/]+=*$/);
    for (const event of await events(HOLDING_FILTER))
      expect(event.createdEventBlob).toBeUndefined();
  });

  it('answers the contracts as they were at an earlier offset', async () => {
    const answer = await activeContracts(0, world.treasury, HOLDING_FILTER);
    expect(answer.body).toEqual([]);
  });

  it('finds an instruction by contract id, with its archive once it ended', async () => {
    const eventsOf = (contractId: string, party = world.pool) =>
      world.post('/v2/events/events-by-contract-id', {
        contractId,
        eventFormat: { filtersByParty: { [party]: INSTRUCTION_FILTER } },
      });
    const pending = await eventsOf(offerId);
    expect(pending.status).toBe(200);
    expectSchema('ledger', 'JsGetEventsByContractIdResponse', pending.body);
    expect(decodeTransferInstruction(pending.body.created.createdEvent)?.offerId).toBe(offerId);
    expect(pending.body.archived).toBeUndefined();
    const { offerId: ended } = (await world.ledger.submitTransfer({
      commandId: 'acs-offer-2',
      sender: world.treasury,
      receiver: world.pool,
      instrument: world.usdcx,
      amount: Amount.of(1),
    })) as { offerId: string };
    await world.ledger.rejectOffer({
      commandId: 'acs-reject-2',
      offerId: ended,
      actor: world.pool,
    });
    const archived = await eventsOf(ended);
    expectSchema('ledger', 'JsGetEventsByContractIdResponse', archived.body);
    expect(archived.body.archived.archivedEvent.contractId).toBe(ended);
    const missing = await eventsOf('no-such-contract');
    expectCantonError(missing, 404, 'CONTRACT_EVENTS_NOT_FOUND');
    const foreign = await eventsOf(offerId, world.wallet.partyId);
    expectCantonError(foreign, 404, 'CONTRACT_EVENTS_NOT_FOUND');
  });

  it('reads every party’s transactions with filtersForAnyParty', async () => {
    const end = await world.ledger.ledgerEnd();
    const answer = await updatesTo(end, { filtersForAnyParty: HOLDING_FILTER });
    expect(answer.status).toBe(200);
    const offsets = answer.body
      .filter((i: { update: { Transaction?: unknown } }) => i.update.Transaction)
      .map(
        (i: { update: { Transaction: { value: { offset: number } } } }) =>
          i.update.Transaction.value.offset,
      );
    expect(offsets).toEqual(Array.from({ length: end }, (_, n) => n + 1));
  });

  it('refuses an offset after the ledger end', async () => {
    const end = await world.ledger.ledgerEnd();
    const answer = await activeContracts(end + 5, world.treasury, HOLDING_FILTER);
    expectCantonError(answer, 400, 'OFFSET_AFTER_LEDGER_END');
  });

  it('streams a party’s transactions over HTTP with gaps, then a checkpoint at the end', async () => {
    const end = await world.ledger.ledgerEnd();
    const answer = await updatesTo(end, {
      filtersByParty: { [world.wallet.partyId]: HOLDING_FILTER },
    });
    expect(answer.status).toBe(200);
    for (const item of answer.body) expectSchema('ledger', 'JsGetUpdatesResponse', item);
    const transactions = answer.body.filter(
      (i: { update: { Transaction?: unknown } }) => i.update.Transaction,
    );
    expect(transactions).toHaveLength(1);
    expect(decodeTransaction(transactions[0].update.Transaction.value).events).toMatchObject([
      { kind: 'mint', owner: world.wallet.partyId },
    ]);
    expect(answer.body.at(-1).update.OffsetCheckpoint.value.offset).toBe(end);
  });
});

describe('ledger faults as Canton reports them', () => {
  const world = sharedWorld();

  const transfer = (commandId: string) => transferSubmission(world, commandId);

  it('a refused submission is a retryable PARTICIPANT_BACKPRESSURE that changed nothing', async () => {
    world.ledger.setFaults({ rejectRate: 1, seed: 1 });
    const end = await world.ledger.ledgerEnd();
    const answer = await world.post(SUBMIT, transfer('fault-reject'));
    world.ledger.setFaults({});
    expectCantonError(answer, 409, 'PARTICIPANT_BACKPRESSURE');
    expect(answer.body.errorCategory).toBe(2);
    expect(answer.body.retryInfo).toBeDefined();
    expect(await world.ledger.ledgerEnd()).toBe(end);
    expect((await world.post(SUBMIT, transfer('fault-reject'))).status).toBe(200);
  });

  it('a timeout after commit is REQUEST_TIME_OUT without a definite answer; the retry finds the commit', async () => {
    world.ledger.setFaults({ timeoutAfterCommitRate: 1, seed: 2 });
    const answer = await world.post(SUBMIT, transfer('fault-timeout'));
    world.ledger.setFaults({});
    expectCantonError(answer, 504, 'REQUEST_TIME_OUT');
    expect(answer.body).toMatchObject({ errorCategory: 3, definiteAnswer: false });
    const committed = await world.ledger.lookupCommand('fault-timeout');
    expect(committed).not.toBeNull();
    const retry = await world.post(SUBMIT, transfer('fault-timeout'));
    expectCantonError(retry, 409, 'DUPLICATE_COMMAND');
    expect(retry.body.context.completion_offset).toBe(String(committed?.offset));
  });
});
