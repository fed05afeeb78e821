/**
 * When a kept active set answers a read as it is, is caught up from the changes in between, or
 * is listed whole again; and how changes move it.
 */
import { describe, expect, it } from 'vitest';
import {
  type ActiveSet,
  caughtUpActiveSet,
  DELTA_OFFSETS_MAX,
  DELTAS_BETWEEN_LISTS,
  listedActiveSet,
  planActiveSetRead,
} from '../src/canton/active-sets.js';
import {
  type CreatedEvent,
  HOLDING_INTERFACE_ID,
  type JsGetUpdatesResponse,
} from '../src/canton/wire/index.js';

const set = (offset: number, deltas = 0): ActiveSet => ({ offset, contracts: new Map(), deltas });

describe('planActiveSetRead', () => {
  it('lists a set never read, and keeps it', () => {
    expect(planActiveSetRead(undefined, 5)).toEqual({ kind: 'list', keep: true });
  });

  it('answers the kept set at its own offset, and catches it up to a later one', () => {
    expect(planActiveSetRead(set(7), 7)).toEqual({ kind: 'kept' });
    expect(planActiveSetRead(set(7), 9)).toEqual({ kind: 'catch-up', beginExclusive: 7 });
  });

  it('lists an earlier offset without taking the kept set back', () => {
    expect(planActiveSetRead(set(7), 6)).toEqual({ kind: 'list', keep: false });
  });

  it('lists again a set too far behind, or caught up too many times', () => {
    expect(planActiveSetRead(set(10), 10 + DELTA_OFFSETS_MAX)).toEqual({
      kind: 'catch-up',
      beginExclusive: 10,
    });
    expect(planActiveSetRead(set(10), 11 + DELTA_OFFSETS_MAX)).toEqual({
      kind: 'list',
      keep: true,
    });
    expect(planActiveSetRead(set(10, DELTAS_BETWEEN_LISTS - 1), 11).kind).toBe('catch-up');
    expect(planActiveSetRead(set(10, DELTAS_BETWEEN_LISTS), 11)).toEqual({
      kind: 'list',
      keep: true,
    });
  });
});

const holding = (contractId: string): CreatedEvent =>
  ({
    contractId,
    interfaceViews: [{ interfaceId: HOLDING_INTERFACE_ID, viewStatus: { code: 0 }, viewValue: {} }],
  }) as unknown as CreatedEvent;

const transaction = (events: unknown[]): JsGetUpdatesResponse =>
  ({ update: { Transaction: { value: { events } } } }) as unknown as JsGetUpdatesResponse;

describe('caughtUpActiveSet', () => {
  it('adds the interface’s creates and drops archives, in order, and counts the catch-up', () => {
    const before = listedActiveSet([holding('a'), holding('b')], 3);
    const other = { contractId: 'x', interfaceViews: [] } as unknown as CreatedEvent;
    const after = caughtUpActiveSet(
      before,
      [
        transaction([{ ArchivedEvent: { contractId: 'a' } }, { CreatedEvent: holding('c') }]),
        transaction([{ CreatedEvent: other }, { CreatedEvent: holding('d') }]),
        transaction([{ ArchivedEvent: { contractId: 'd' } }]),
      ],
      8,
      HOLDING_INTERFACE_ID,
    );
    expect([...after.contracts.keys()].sort()).toEqual(['b', 'c']);
    expect(after.offset).toBe(8);
    expect(after.deltas).toBe(1);
    // The set caught up from is not changed.
    expect([...before.contracts.keys()].sort()).toEqual(['a', 'b']);
  });
});
