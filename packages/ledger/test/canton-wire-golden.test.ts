/**
 * The wire codec reads real participant output: the three exchange-integration transactions of
 * the Token Standard documentation (an older API version than 3.4.12: no `acsDelta`, no
 * `representativePackageId`, `null` for absent optional fields). Expected values are copied from
 * the files by hand.
 */
import { readFileSync } from 'node:fs';
import { Amount } from '@poolparty/core';
import { describe, expect, it } from 'vitest';
import {
  CantonWireError,
  type CreatedEvent,
  damlDecimal,
  decodeHolding,
  decodeTransaction,
  decodeTransferInstruction,
  decodeUpdatesItem,
  exercisedOfferIds,
  instructionInputHoldingIds,
  type JsGetUpdatesResponse,
  type JsTransaction,
  parseDamlDecimal,
  parseDamlTime,
  REASON_META_KEY,
} from '../src/canton/wire/index.js';

const EXAMPLES = '/work/shared/canton/examples';

function example(name: string): JsGetUpdatesResponse {
  return JSON.parse(readFileSync(`${EXAMPLES}/${name}.json`, 'utf8')) as JsGetUpdatesResponse;
}

function transactionOf(item: JsGetUpdatesResponse): JsTransaction {
  const update = item.update;
  if (update === undefined || !('Transaction' in update)) throw new Error('not a transaction');
  return update.Transaction.value;
}

function createdEvents(tx: JsTransaction): CreatedEvent[] {
  return tx.events.flatMap((event) => ('CreatedEvent' in event ? [event.CreatedEvent] : []));
}

// One-step deposit (pre-approved Amulet transfer).
const ONE_STEP_SENDER =
  'sender::1220278a4a0eb2c244b425dff62853ef1cd04ca1095bffcea465c0de766faf9ab8cd';
const ONE_STEP_TREASURY =
  'treasury-party::1220278a4a0eb2c244b425dff62853ef1cd04ca1095bffcea465c0de766faf9ab8cd';
const ONE_STEP_DSO = 'DSO::12204b8b621ec1dedd51ee2510085f8164cad194953496494d32f541f3f2c170e962';

// Two-step deposit: the instruction and its acceptance.
const OFFER_ID =
  '00fc774936c91f423c117744102a5996e4dc117f2b6496ef337967a7d2c5d02e4aca1112203c35266c980ae19508cc690cb501f8c767c02bfdbe838f1f89105de6fe59439f';
const TWO_STEP_SENDER =
  'sender::1220f37942af4f4d062006155d504f1adfa1565260cd499e62325b011c06db635d8c';
const TWO_STEP_TREASURY =
  'treasury-party::12207bd11907b9b3c11ade702d30b556bfe635314d3d0f708f9677e09a4ff096ef87';
const TWO_STEP_DSO = 'DSO::1220d26d73867a428814de451fdd8e716acf45fe59c6569d76ad77d42270629f3ce9';

const AMULET_ONE_STEP = { admin: ONE_STEP_DSO, id: 'Amulet' };
const AMULET_TWO_STEP = { admin: TWO_STEP_DSO, id: 'Amulet' };

describe('golden: 1-step-transfer.json', () => {
  const item = example('1-step-transfer');

  it('is one transfer to the treasury with the reason, the amount received and the burned fees', () => {
    const decoded = decodeUpdatesItem(item);
    expect(decoded.kind).toBe('transaction');
    if (decoded.kind !== 'transaction') return;
    const { update } = decoded;
    expect(update.offset).toBe(107);
    expect(update.updateId).toBe(
      '122008a4699e61ce682917c9515ecb3b4426adf276441e41edede8b3862efa2de80e',
    );
    expect(update.commandId).toBe('582f81e4-86e4-48fa-ad95-607e9ebe8c9b');
    // 1970-01-01T00:01:00.000114Z: microseconds below the millisecond are dropped.
    expect(update.recordTime).toEqual(new Date(60_000));
    expect(update.trafficBytes).toBeNull();
    expect(update.events).toEqual([
      {
        kind: 'transfer',
        sender: ONE_STEP_SENDER,
        receiver: ONE_STEP_TREASURY,
        instrument: AMULET_ONE_STEP,
        amount: Amount.of(200),
        meta: { [REASON_META_KEY]: 'deposit-account-id' },
        offerId: null,
        feesBurned: Amount.of(14),
      },
    ]);
  });

  it('shows the created Amulet holdings through their Holding views, coupons as none', () => {
    const holdings = createdEvents(transactionOf(item)).map(decodeHolding);
    expect(holdings).toEqual([
      null, // ValidatorRewardCoupon
      null, // AppRewardCoupon
      {
        holdingId:
          '008f783cd288ce926f8bc973df7ddb719e0b8c941dd84cd9a6ca0240fb7ecff390ca111220f5d7073ad68f0746851954e570f348d099a323b796f71807caf71871fce6d956',
        owner: ONE_STEP_TREASURY,
        instrument: AMULET_ONE_STEP,
        amount: Amount.of(200),
        lock: null,
      },
      {
        holdingId:
          '00431eabcbb8f4293ccc0e17764bca260ff64aede386245c033b2d0ebddc2cbb21ca111220e755e3b05c909e84ffbc47fa4be1e1b786af37e76479efd348a0ae2722149904',
        owner: ONE_STEP_SENDER,
        instrument: AMULET_ONE_STEP,
        amount: Amount.parse('199663.36'),
        lock: null,
      },
    ]);
  });
});

describe('golden: transfer-instruction-create.json', () => {
  const item = example('transfer-instruction-create');
  const expectedOffer = {
    offerId: OFFER_ID,
    sender: TWO_STEP_SENDER,
    receiver: TWO_STEP_TREASURY,
    instrument: AMULET_TWO_STEP,
    amount: Amount.of(1000),
    meta: { [REASON_META_KEY]: 'deposit-account-id' },
    executeBefore: new Date('1970-01-01T00:02:00Z'),
  };

  it('is an offer whose id is the instruction contract id; the hidden command id is null', () => {
    const update = decodeTransaction(transactionOf(item));
    expect(update.offset).toBe(96);
    expect(update.updateId).toBe(
      '12208359521a283dbd0749c2a38c858ad71612fd5177aa95fb736e77fd181b8060c7',
    );
    expect(update.commandId).toBeNull();
    expect(update.recordTime).toEqual(new Date(60_000));
    expect(update.events).toEqual([{ kind: 'offer_created', ...expectedOffer }]);
  });

  it('decodes the instruction from its interface view, and has no Holding view', () => {
    const [event] = createdEvents(transactionOf(item));
    if (event === undefined) throw new Error('no created event');
    expect(decodeTransferInstruction(event)).toEqual(expectedOffer);
    expect(decodeHolding(event)).toBeNull();
    // Amulet names the locked holding (`lockedAmulet`) as the instruction's input.
    expect(instructionInputHoldingIds(event)).toEqual([
      '004ef3ae401af384aa37391f3a975647b1ca3d9ca3dc97f7b1e19c47d013ed4956ca11122015cac2e81f6d2e2735ed64c16326230234cc374c85ed42657b7801bf62233ddc',
    ]);
  });
});

describe('golden: transfer-instruction-accept.json', () => {
  const tx = transactionOf(example('transfer-instruction-accept'));

  it('names the accepted instruction for lookup', () => {
    expect(exercisedOfferIds(tx)).toEqual([OFFER_ID]);
  });

  it('is the transfer settling that offer, read from the transaction alone', () => {
    const update = decodeTransaction(tx);
    expect(update.offset).toBe(106);
    expect(update.commandId).toBe('d5e461d9-405d-4042-bea2-6eca4b82548c');
    expect(update.events).toEqual([
      {
        kind: 'transfer',
        sender: TWO_STEP_SENDER,
        receiver: TWO_STEP_TREASURY,
        instrument: AMULET_TWO_STEP,
        amount: Amount.of(1000),
        // The reason lives on the instruction, which the acceptance does not show.
        meta: {},
        offerId: OFFER_ID,
        feesBurned: Amount.of(22),
      },
    ]);
  });

  it('takes the offer details from the instruction when the reader knows it', () => {
    const [created] = createdEvents(transactionOf(example('transfer-instruction-create')));
    if (created === undefined) throw new Error('no created event');
    const offer = decodeTransferInstruction(created);
    const update = decodeTransaction(tx, {
      offerOf: (offerId) => (offerId === offer?.offerId ? offer : undefined),
    });
    expect(update.events).toEqual([
      {
        kind: 'transfer',
        sender: TWO_STEP_SENDER,
        receiver: TWO_STEP_TREASURY,
        instrument: AMULET_TWO_STEP,
        amount: Amount.of(1000),
        meta: { [REASON_META_KEY]: 'deposit-account-id' },
        offerId: OFFER_ID,
        feesBurned: Amount.of(22),
      },
    ]);
  });

  it('refuses a reject it cannot describe with unknown_offer, and reads it given the offer', () => {
    const rejected: JsTransaction = structuredClone(tx);
    const [root] = rejected.events;
    if (root === undefined || !('ExercisedEvent' in root)) throw new Error('no root exercise');
    root.ExercisedEvent.choice = 'TransferInstruction_Reject';
    root.ExercisedEvent.exerciseResult = {
      output: { tag: 'TransferInstructionResult_Failed', value: {} },
      senderChangeCids: [],
      meta: { values: {} },
    };
    expect(() => decodeTransaction(rejected)).toThrow(
      expect.objectContaining({ name: 'CantonWireError', code: 'unknown_offer' }),
    );
    const offer = {
      offerId: OFFER_ID,
      sender: TWO_STEP_SENDER,
      receiver: TWO_STEP_TREASURY,
      instrument: AMULET_TWO_STEP,
      amount: Amount.of(1000),
      meta: {},
      executeBefore: new Date(120_000),
    };
    expect(decodeTransaction(rejected, { offerOf: () => offer }).events).toEqual([
      { kind: 'offer_rejected', ...offer },
    ]);
  });
});

describe('updates items other than transactions', () => {
  it('reads an offset checkpoint with the latest synchronizer time', () => {
    const item: JsGetUpdatesResponse = {
      update: {
        OffsetCheckpoint: {
          value: {
            offset: 120,
            synchronizerTimes: [
              { synchronizerId: 'a::1220', recordTime: '2026-01-02T03:04:05.678901Z' },
              { synchronizerId: 'b::1220', recordTime: '2026-01-02T03:04:04Z' },
            ],
          },
        },
      },
    };
    expect(decodeUpdatesItem(item)).toEqual({
      kind: 'checkpoint',
      offset: 120,
      recordTime: new Date('2026-01-02T03:04:05.678Z'),
    });
  });

  it('passes a checkpoint without times and unknown updates through as other', () => {
    expect(decodeUpdatesItem({ update: { OffsetCheckpoint: { value: { offset: 7 } } } })).toEqual({
      kind: 'other',
      offset: 7,
    });
    expect(decodeUpdatesItem({})).toEqual({ kind: 'other', offset: null });
  });
});

describe('malformed input', () => {
  const base = transactionOf(example('1-step-transfer'));

  it('fails with a stable code, never a crash', () => {
    const noRecordTime = { ...base, recordTime: 'yesterday' };
    expect(() => decodeTransaction(noRecordTime)).toThrow(
      expect.objectContaining({ code: 'invalid_time' }),
    );
    const badEvents = { ...base, events: 'none' } as unknown as JsTransaction;
    expect(() => decodeTransaction(badEvents)).toThrow(
      expect.objectContaining({ code: 'malformed' }),
    );
    const badAmount: JsTransaction = structuredClone(base);
    const holding = createdEvents(badAmount).at(-1);
    const view = holding?.interfaceViews?.[0]?.viewValue as { amount: string } | undefined;
    if (view === undefined) throw new Error('no holding view');
    view.amount = '-5.0';
    expect(() => decodeHolding(holding as CreatedEvent)).toThrow(CantonWireError);
    expect(() => decodeHolding(holding as CreatedEvent)).toThrow(
      expect.objectContaining({ code: 'invalid_decimal' }),
    );
  });
});

describe('Daml values', () => {
  it('prints Numeric 10 with every decimal and reads the shorter forms Daml code shows', () => {
    expect(damlDecimal(Amount.parse('199663.36'))).toBe('199663.3600000000');
    expect(damlDecimal(Amount.ZERO)).toBe('0.0000000000');
    expect(parseDamlDecimal('14.0')).toEqual(Amount.of(14));
    expect(parseDamlDecimal('0.0000000001')).toEqual(Amount.fromUnits(1n));
    for (const bad of ['', '1e3', '-1.0', '1.00000000001', ' 1']) {
      expect(() => parseDamlDecimal(bad), bad).toThrow(
        expect.objectContaining({ code: 'invalid_decimal' }),
      );
    }
  });

  it('reads RFC 3339 times with micro- or nanoseconds and offsets', () => {
    expect(parseDamlTime('1970-01-01T00:01:00Z')).toEqual(new Date(60_000));
    expect(parseDamlTime('1970-01-01T00:01:00.000182Z')).toEqual(new Date(60_000));
    expect(parseDamlTime('2026-03-04T05:06:07.123456789+01:00')).toEqual(
      new Date('2026-03-04T04:06:07.123Z'),
    );
    for (const bad of ['', '2026-03-04', '2026-03-04 05:06:07Z', '2026-13-04T05:06:07Z']) {
      expect(() => parseDamlTime(bad), bad).toThrow(
        expect.objectContaining({ code: 'invalid_time' }),
      );
    }
  });
});
