/**
 * The update-stream promises the proxy checks beyond the documents' shapes: each rule on a
 * stream that keeps it and on one that breaks it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UpdatesStreamChecker } from './support/stream-invariants.js';
import { CANTON_SPEC_DIR } from './support/wire-validator.js';

const SYNC = 'global-domain::1220';

function checkpoint(offset: number, recordTime: string) {
  return {
    update: {
      OffsetCheckpoint: {
        value: { offset, synchronizerTimes: [{ synchronizerId: SYNC, recordTime }] },
      },
    },
  };
}

function created(offset: number, nodeId: number, contractId: string, acsDelta = true) {
  return { CreatedEvent: { offset, nodeId, contractId, acsDelta } };
}

function exercised(
  offset: number,
  nodeId: number,
  contractId: string,
  consuming: boolean,
  acsDelta: boolean,
  lastDescendantNodeId = nodeId,
) {
  return {
    ExercisedEvent: { offset, nodeId, contractId, consuming, acsDelta, lastDescendantNodeId },
  };
}

function transaction(
  offset: number,
  recordTime: string,
  events: object[],
  updateId = `u${offset}`,
) {
  return { update: { Transaction: { value: { offset, updateId, recordTime, events } } } };
}

function run(request: object, items: object[]): string[] {
  const checker = new UpdatesStreamChecker('stream', request);
  return items.flatMap((item, i) =>
    checker.check(item, `${i}`).map((m) => `${m.location} ${m.message}`),
  );
}

describe('update stream invariants', () => {
  it('a well-kept stream passes', () => {
    expect(
      run({ beginExclusive: 3, endInclusive: 6 }, [
        transaction(4, '2030-01-01T00:00:01Z', [
          exercised(4, 0, 'c1', true, true, 2),
          created(4, 1, 'c2', false),
          exercised(4, 2, 'c2', true, false),
          created(4, 3, 'c3'),
        ]),
        checkpoint(5, '2030-01-01T00:00:02Z'),
        transaction(6, '2030-01-01T00:00:02Z', [exercised(6, 0, 'c3', false, false)]),
      ]),
    ).toEqual([]);
  });

  it('offsets must increase within the requested range', () => {
    expect(
      run({ beginExclusive: 3, endInclusive: 6 }, [
        transaction(3, '2030-01-01T00:00:01Z', []),
        transaction(5, '2030-01-01T00:00:01Z', []),
        checkpoint(5, '2030-01-01T00:00:01Z'),
        transaction(5, '2030-01-01T00:00:01Z', [], 'again'),
        checkpoint(4, '2030-01-01T00:00:01Z'),
        transaction(7, '2030-01-01T00:00:01Z', []),
      ]),
    ).toEqual([
      '0/update/Transaction/value/offset 3 is not after beginExclusive 3',
      '3/update/Transaction/value/offset 5 does not follow 5',
      '3/update/Transaction/value/offset 5 is not after the checkpoint at 5',
      '4/update/OffsetCheckpoint/value/offset 4 goes back from 5',
      '5/update/Transaction/value/offset 7 is after endInclusive 6',
    ]);
  });

  it('record time must not go back, nor an update repeat', () => {
    expect(
      run({}, [
        transaction(1, '2030-01-01T00:00:05Z', []),
        checkpoint(1, '2030-01-01T00:00:04Z'),
        transaction(2, '2030-01-01T00:00:06Z', [], 'u1'),
      ]),
    ).toEqual([
      '1/update/OffsetCheckpoint/recordTime goes back in time',
      '2/update/Transaction/value/updateId repeats an earlier update',
    ]);
  });

  it('events carry the transaction offset and come in node order', () => {
    expect(
      run({}, [
        transaction(2, '2030-01-01T00:00:00Z', [
          created(2, 1, 'a'),
          created(1, 0, 'b'),
          exercised(2, 3, 'x', true, true, 2),
        ]),
      ]),
    ).toEqual([
      "0/update/Transaction/value/events/1/CreatedEvent/offset 1 is not the transaction's offset 2",
      '0/update/Transaction/value/events/1/CreatedEvent/nodeId 0 does not follow node 1',
      '0/update/Transaction/value/events/2/ExercisedEvent/lastDescendantNodeId is before the node itself',
    ]);
  });

  it('acsDelta is false where the active contract set does not change', () => {
    expect(
      run({}, [
        transaction(1, '2030-01-01T00:00:00Z', [
          exercised(1, 0, 'x', false, true),
          created(1, 1, 't', true),
          exercised(1, 2, 't', true, true),
        ]),
      ]),
    ).toEqual([
      '0/update/Transaction/value/events/0/ExercisedEvent/acsDelta is true for a non-consuming exercise',
      '0/update/Transaction/value/events/1/CreatedEvent/acsDelta is true for a contract created and consumed in one transaction',
      '0/update/Transaction/value/events/2/ExercisedEvent/acsDelta is true for a contract created and consumed in one transaction',
    ]);
  });

  it("a real participant's transactions keep every rule", () => {
    const golden = [
      '1-step-transfer',
      'transfer-instruction-create',
      'transfer-instruction-accept',
    ].map(
      (name) =>
        JSON.parse(readFileSync(`${CANTON_SPEC_DIR}/examples/${name}.json`, 'utf8')) as object,
    );
    for (const item of golden) expect(run({ beginExclusive: 0 }, [item])).toEqual([]);
  });
});
