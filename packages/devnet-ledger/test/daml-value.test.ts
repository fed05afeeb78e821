/**
 * Typing a choice argument's JSON by its Daml type, and reading it back: every kind the Token
 * Standard choices use, the way back giving a command that means the same, and the refusals of
 * JSON the type does not admit.
 */
import { describe, expect, it } from 'vitest';
import { CantonApiError } from '../src/canton-errors.js';
import { CHOICE_ARGUMENT_TYPES } from '../src/daml-types.js';
import { damlValueOf, jsonOfDamlValue } from '../src/daml-value.js';

const TRANSFER = CHOICE_ARGUMENT_TYPES.TransferFactory_Transfer as NonNullable<
  (typeof CHOICE_ARGUMENT_TYPES)[string]
>;

const argument = {
  expectedAdmin: 'dso::1220aa',
  transfer: {
    sender: 'alice::1220bb',
    receiver: 'bob::1220cc',
    amount: '12.5',
    instrumentId: { admin: 'dso::1220aa', id: 'Amulet' },
    requestedAt: '2030-01-01T00:00:00.123456Z',
    executeBefore: '2030-01-02T00:00:00Z',
    inputHoldingCids: ['holding-1-0a0b', 'holding-2-0c0d'],
    meta: { values: { reason: 'rent' } },
  },
  extraArgs: {
    context: {
      values: {
        'amulet-rules': { tag: 'AV_ContractId', value: '00abcd' },
        round: { tag: 'AV_Int', value: '42' },
        due: { tag: 'AV_Date', value: '2030-01-03' },
        flags: { tag: 'AV_List', value: [{ tag: 'AV_Bool', value: true }] },
        price: { tag: 'AV_Decimal', value: '-0.25' },
      },
    },
    meta: { values: {} },
  },
};

describe('a choice argument typed by its Daml type', () => {
  it('gives every field its kind', () => {
    const value = damlValueOf(argument, TRANSFER, 'choiceArgument');
    const json = JSON.stringify(value);
    for (const kind of ['party', 'numeric', 'timestamp', 'contractId', 'textMap', 'variant']) {
      expect(json).toContain(`"oneofKind":"${kind}"`);
    }
    expect(json).toContain('"numeric":"12.5000000000"');
    expect(json).toContain('"timestamp":"1893456000123456"');
  });

  it('reads back as JSON that means the same', () => {
    const back = jsonOfDamlValue(damlValueOf(argument, TRANSFER, 'choiceArgument'));
    expect(back).toEqual({
      ...argument,
      transfer: {
        ...argument.transfer,
        amount: '12.5000000000',
        executeBefore: '2030-01-02T00:00:00.000Z',
      },
      extraArgs: {
        ...argument.extraArgs,
        context: {
          values: {
            ...argument.extraArgs.context.values,
            price: { tag: 'AV_Decimal', value: '-0.2500000000' },
          },
        },
      },
    });
  });

  it.each([
    [
      'a missing field',
      { ...argument, expectedAdmin: undefined },
      'choiceArgument.expectedAdmin is missing',
    ],
    ['an undeclared field', { ...argument, extra: 1 }, 'choiceArgument has no field extra'],
    [
      'an amount of eleven decimals',
      { ...argument, transfer: { ...argument.transfer, amount: '1.00000000001' } },
      'choiceArgument.transfer.amount must be a Numeric 10',
    ],
    [
      'a time that is not RFC 3339',
      { ...argument, transfer: { ...argument.transfer, executeBefore: 'tomorrow' } },
      'choiceArgument.transfer.executeBefore must be an RFC 3339 timestamp',
    ],
    [
      'a party that is not text',
      { ...argument, transfer: { ...argument.transfer, sender: 7 } },
      'choiceArgument.transfer.sender must be a party',
    ],
    [
      'an unknown AnyValue constructor',
      {
        ...argument,
        extraArgs: {
          ...argument.extraArgs,
          context: { values: { x: { tag: 'AV_Blob', value: '' } } },
        },
      },
      'must be a constructor of the variant',
    ],
    [
      'an Int64 out of range',
      {
        ...argument,
        extraArgs: {
          ...argument.extraArgs,
          context: { values: { x: { tag: 'AV_Int', value: '9223372036854775808' } } },
        },
      },
      'must be an Int64',
    ],
  ])('refuses %s', (_case, json, cause) => {
    let refusal: unknown;
    try {
      damlValueOf(json, TRANSFER, 'choiceArgument');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(CantonApiError);
    expect((refusal as CantonApiError).message).toContain(cause);
  });
});
