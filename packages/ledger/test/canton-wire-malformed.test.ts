/**
 * Whatever a participant (or something posing as one) sends, decoding either succeeds or fails
 * with a `CantonWireError` carrying a stable code: random damage anywhere in real and rendered
 * transactions (a value replaced by any JSON, a field or list item removed) never crashes it.
 */
import { readFileSync } from 'node:fs';
import { Amount } from '@poolparty/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CantonWireError,
  type CreatedEvent,
  decodeHolding,
  decodeTransferInstruction,
  decodeUpdatesItem,
  encodeTransaction,
  encodeTransactionItem,
  exercisedOfferIds,
  instructionInputHoldingIds,
  type JsGetUpdatesResponse,
} from '../src/canton/wire/index.js';
import type { TransferOffer } from '../src/port.js';

const EXAMPLES = '/work/shared/canton/examples';
const CODES = new Set(['invalid_decimal', 'invalid_time', 'malformed', 'unknown_offer']);

const OFFER: TransferOffer = {
  offerId: 'offer-1',
  sender: 'alice::1220',
  receiver: 'bob::1220',
  instrument: { admin: 'registry::1220', id: 'USDCx' },
  amount: Amount.of(3),
  meta: { note: 'x' },
  executeBefore: new Date(90_000),
};

/** A rendered accept and reject, so the devnet's own shapes are damaged too. */
function rendered(): JsGetUpdatesResponse[] {
  const locked = {
    holdingId: 'holding-2',
    owner: OFFER.sender,
    instrument: OFFER.instrument,
    amount: OFFER.amount,
    lock: { offerId: OFFER.offerId, expiresAt: OFFER.executeBefore, context: 'offer' },
  };
  const base = { offset: 4, recordTime: new Date(60_000), commandId: 'c', trafficBytes: 100 };
  const accept = encodeTransaction({
    update: {
      ...base,
      updateId: 'u-accept',
      events: [{ kind: 'transfer', ...OFFER, feesBurned: Amount.ZERO }],
    },
    created: [{ ...locked, holdingId: 'holding-3', owner: OFFER.receiver, lock: null }],
    archived: [locked],
    offers: new Map([[OFFER.offerId, OFFER]]),
    synchronizerId: 'sync::1220',
  });
  const reject = encodeTransaction({
    update: { ...base, updateId: 'u-reject', events: [{ kind: 'offer_rejected', ...OFFER }] },
    created: [{ ...locked, holdingId: 'holding-4', lock: null }],
    archived: [locked],
    offers: new Map([[OFFER.offerId, OFFER]]),
    synchronizerId: 'sync::1220',
  });
  return [encodeTransactionItem(accept), encodeTransactionItem(reject)];
}

const SAMPLES: readonly JsGetUpdatesResponse[] = [
  ...['1-step-transfer', 'transfer-instruction-create', 'transfer-instruction-accept'].map(
    (name) => JSON.parse(readFileSync(`${EXAMPLES}/${name}.json`, 'utf8')) as JsGetUpdatesResponse,
  ),
  ...rendered(),
];

type Path = readonly (string | number)[];

function pathsOf(value: unknown, path: Path = []): Path[] {
  const here = [path];
  if (Array.isArray(value)) return [...here, ...value.flatMap((v, i) => pathsOf(v, [...path, i]))];
  if (typeof value === 'object' && value !== null) {
    return [...here, ...Object.entries(value).flatMap(([k, v]) => pathsOf(v, [...path, k]))];
  }
  return here;
}

/** The value with the node at `path` replaced (or removed when `replacement` is undefined). */
function damaged(value: unknown, path: Path, replacement: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return replacement;
  if (Array.isArray(value)) {
    const copy = [...value];
    if (rest.length === 0 && replacement === undefined) copy.splice(Number(head), 1);
    else copy[Number(head)] = damaged(copy[Number(head)], rest, replacement);
    return copy;
  }
  const copy = { ...(value as Record<string, unknown>) };
  if (rest.length === 0 && replacement === undefined) delete copy[head];
  else copy[head] = damaged(copy[head], rest, replacement);
  return copy;
}

function decodesOrRefuses(attempt: () => unknown): void {
  try {
    attempt();
  } catch (error) {
    if (!(error instanceof CantonWireError) || !CODES.has(error.code)) throw error;
  }
}

function createdEventsIn(item: unknown): unknown[] {
  const events = (item as { update?: { Transaction?: { value?: { events?: unknown } } } })?.update
    ?.Transaction?.value?.events;
  if (!Array.isArray(events)) return [];
  return events.flatMap((event) =>
    typeof event === 'object' && event !== null && 'CreatedEvent' in event
      ? [(event as { CreatedEvent: unknown }).CreatedEvent]
      : [],
  );
}

describe('decoding damaged Canton JSON', () => {
  it('succeeds or fails with a CantonWireError code, never anything else', () => {
    const damage = fc.record({
      at: fc.nat(),
      replacement: fc.oneof(
        fc.constant(undefined),
        fc.jsonValue({ maxDepth: 2 }),
        fc.constantFrom(null, '', '-1.0', '1e5', 'abc', 3.5, -1, [], {}, '9'.repeat(28)),
      ),
    });
    const scenario = fc.record({
      sample: fc.nat({ max: SAMPLES.length - 1 }),
      damages: fc.array(damage, { minLength: 1, maxLength: 3 }),
      knowsOffer: fc.boolean(),
    });
    fc.assert(
      fc.property(scenario, ({ sample, damages, knowsOffer }) => {
        let item = SAMPLES[sample] as unknown;
        for (const { at, replacement } of damages) {
          const paths = pathsOf(item);
          item = damaged(item, paths[at % paths.length] ?? [], replacement);
        }
        const offerOf = (offerId: string) => (knowsOffer ? { ...OFFER, offerId } : undefined);
        decodesOrRefuses(() => decodeUpdatesItem(item as JsGetUpdatesResponse, { offerOf }));
        const tx = (item as { update?: { Transaction?: { value?: unknown } } })?.update?.Transaction
          ?.value;
        if (tx !== undefined) decodesOrRefuses(() => exercisedOfferIds(tx as never));
        for (const event of createdEventsIn(item)) {
          decodesOrRefuses(() => decodeHolding(event as CreatedEvent));
          decodesOrRefuses(() => decodeTransferInstruction(event as CreatedEvent));
          decodesOrRefuses(() => instructionInputHoldingIds(event as CreatedEvent));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('names what is wrong', () => {
    const [oneStep] = SAMPLES;
    const path = ['update', 'Transaction', 'value', 'events', 0, 'ExercisedEvent', 'nodeId'];
    const item = damaged(oneStep, path, 'four') as JsGetUpdatesResponse;
    expect(() => decodeUpdatesItem(item)).toThrow(/events\[0\]\.nodeId: expected an integer/);
  });
});
