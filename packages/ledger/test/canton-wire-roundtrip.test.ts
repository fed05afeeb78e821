/**
 * What the devnet ledger serves decodes back to what the local ledger did: for random traffic
 * (mints, burns, direct transfers, offers and their acceptance, rejection and withdrawal) every
 * update's Canton rendering decodes to the same update, every party's projection of it to the
 * events that party is part of, and every holding and offer to itself.
 */
import { AMOUNT_SCALE, Amount, type Instrument } from '@poolparty/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeHolding,
  decodeTransaction,
  decodeTransferInstruction,
  encodeHoldingCreated,
  encodeTransaction,
  encodeTransferInstructionCreated,
  instructionInputHoldingIds,
  projectTransaction,
  REASON_META_KEY,
} from '../src/canton/wire/index.js';
import { openLocalLedger } from '../src/index.js';
import type { LocalLedger } from '../src/local/control.js';
import { LedgerError, type LedgerEvent, type Meta, type TransferOffer } from '../src/port.js';

const SYNCHRONIZER = 'global-domain::1220aa';

type Op =
  | { kind: 'mint' | 'burn'; party: number; instrument: number; units: bigint }
  | {
      kind: 'transfer';
      sender: number;
      receiver: number;
      instrument: number;
      units: bigint;
      meta: Meta;
    }
  | { kind: 'accept' | 'reject' | 'withdraw'; offer: number };

const party = fc.nat({ max: 2 });
const instrument = fc.nat({ max: 1 });
const units = fc.oneof(
  fc.bigInt({ min: 1n, max: 30n * AMOUNT_SCALE }),
  fc.bigInt({ min: 1n, max: 30n }).map((n) => n * AMOUNT_SCALE),
);
const meta: fc.Arbitrary<Meta> = fc.dictionary(
  fc.oneof(fc.constantFrom(REASON_META_KEY, 'poolparty.test/ref'), fc.string({ maxLength: 12 })),
  fc.string({ maxLength: 24 }),
  { maxKeys: 3 },
);

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('mint' as const), party, instrument, units }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('burn' as const), party, instrument, units }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('transfer' as const),
      sender: party,
      receiver: party,
      instrument,
      units,
      meta,
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      // Acceptance twice as often: its rendering is the richest.
      kind: fc.constantFrom(
        'accept' as const,
        'accept' as const,
        'reject' as const,
        'withdraw' as const,
      ),
      offer: fc.nat(),
    }),
  },
);

interface Scene {
  readonly ledger: LocalLedger;
  readonly users: readonly string[];
  readonly instruments: readonly Instrument[];
}

async function openScene(): Promise<Scene> {
  const ledger = await openLocalLedger({});
  const instruments: Instrument[] = [];
  for (const hint of ['registry-a', 'registry-b']) {
    const { partyId } = await ledger.createParty({ hint });
    instruments.push({ admin: partyId, id: 'USDCx' });
  }
  for (const i of instruments) await ledger.createInstrument(i);
  const users: string[] = [];
  // One user pre-approves everything, one the first instrument, one nothing: direct and offers.
  const approvals: (readonly Instrument[] | 'all')[] = ['all', instruments.slice(0, 1), []];
  for (const [n, preapprovals] of approvals.entries()) {
    users.push((await ledger.createParty({ hint: `user-${n}`, preapprovals })).partyId);
  }
  for (const owner of users) {
    for (const i of instruments) await ledger.mint({ owner, instrument: i, amount: Amount.of(40) });
  }
  return { ledger, users, instruments };
}

function pick<T>(items: readonly T[], n: number): T {
  const item = items[n % items.length];
  if (item === undefined) throw new Error('nothing to pick from');
  return item;
}

/** Runs one op; the ledger's refusals (insufficient holdings, self-transfer...) are fine. */
async function run(scene: Scene, op: Op, pending: TransferOffer[], n: number): Promise<void> {
  const { ledger, users, instruments } = scene;
  const commandId = `cmd-${n}`;
  try {
    switch (op.kind) {
      case 'mint':
      case 'burn': {
        const request = {
          owner: pick(users, op.party),
          instrument: pick(instruments, op.instrument),
          amount: Amount.fromUnits(op.units),
          commandId,
        };
        await (op.kind === 'mint' ? ledger.mint(request) : ledger.burn(request));
        return;
      }
      case 'transfer':
        await ledger.submitTransfer({
          commandId,
          sender: pick(users, op.sender),
          receiver: pick(users, op.receiver),
          instrument: pick(instruments, op.instrument),
          amount: Amount.fromUnits(op.units),
          meta: op.meta,
        });
        return;
      default: {
        const all = (await Promise.all(users.map((u) => ledger.getPendingOffers(u)))).flat();
        pending.splice(0, pending.length, ...new Map(all.map((o) => [o.offerId, o])).values());
        if (pending.length === 0) return;
        const offer = pick(pending, op.offer);
        const { offerId } = offer;
        if (op.kind === 'accept') {
          await ledger.acceptOffer({ commandId, offerId, actor: offer.receiver });
        } else if (op.kind === 'reject') {
          await ledger.rejectOffer({ commandId, offerId, actor: offer.receiver });
        } else {
          await ledger.withdrawOffer({ commandId, offerId, actor: offer.sender });
        }
      }
    }
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error;
  }
}

function partiesOf(event: LedgerEvent): string[] {
  return 'owner' in event ? [event.owner] : [event.sender, event.receiver];
}

const needsOfferDetails = (event: LedgerEvent) =>
  event.kind === 'offer_rejected' || event.kind === 'offer_withdrawn';

describe('Canton wire round trip over the local ledger', () => {
  it('decodes every rendered update, projection, holding and offer back to the original', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { minLength: 1, maxLength: 40, size: 'medium' }),
        async (ops) => {
          const scene = await openScene();
          const { ledger } = scene;
          try {
            const pending: TransferOffer[] = [];
            for (const [n, next] of ops.entries()) await run(scene, next, pending, n);
            const offers = new Map<string, TransferOffer>();
            const offerOf = (offerId: string) => offers.get(offerId);
            const end = await ledger.ledgerEnd();
            for (let offset = 1; offset <= end; offset++) {
              const update = ledger.updateAt(offset);
              const changes = ledger.holdingChangesAt(offset);
              if (update === undefined || changes === undefined)
                throw new Error(`gap at ${offset}`);
              for (const event of update.events) {
                if (event.kind === 'offer_created') {
                  const { kind: _, ...offer } = event;
                  offers.set(offer.offerId, offer);
                }
              }
              const tx = encodeTransaction({
                update,
                ...changes,
                offers,
                synchronizerId: SYNCHRONIZER,
              });
              expect(decodeTransaction(tx, { offerOf })).toEqual(update);

              // Without the instructions' details only a reject or withdraw cannot be read.
              if (update.events.some(needsOfferDetails)) {
                expect(() => decodeTransaction(tx)).toThrow(
                  expect.objectContaining({ code: 'unknown_offer' }),
                );
              } else {
                expect(decodeTransaction(tx)).toEqual(update);
              }

              for (const reader of new Set(update.events.flatMap(partiesOf))) {
                const seen = projectTransaction(tx, [reader]);
                expect(seen).not.toBeNull();
                if (seen === null) continue;
                const own = update.events.filter((event) => partiesOf(event).includes(reader));
                expect(decodeTransaction(seen, { offerOf }).events).toEqual(own);
              }

              // An instruction names the holding it locked, as Amulet's do.
              for (const event of tx.events) {
                if (!('CreatedEvent' in event)) continue;
                const offer = decodeTransferInstruction(event.CreatedEvent);
                if (offer === null) continue;
                const locked = changes.created.filter((h) => h.lock?.offerId === offer.offerId);
                expect(locked).toHaveLength(1);
                expect(instructionInputHoldingIds(event.CreatedEvent)).toEqual(
                  locked.map((h) => h.holdingId),
                );
              }

              for (const holding of changes.created) {
                const event = encodeHoldingCreated(holding, offset, SYNCHRONIZER, {
                  createdAt: update.recordTime,
                });
                expect(decodeHolding(event)).toEqual(holding);
              }
            }
            for (const offer of offers.values()) {
              const event = encodeTransferInstructionCreated(offer, 1, SYNCHRONIZER);
              expect(decodeTransferInstruction(event)).toEqual(offer);
            }
          } finally {
            await ledger.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
