/**
 * The adapter's readings of real Canton transactions (the Token Standard's exchange-integration
 * examples): how a transfer settled, and an acceptance decoded against the offer read before.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { transferOutcomeOf } from '../src/canton/commands.js';
import { OfferBook } from '../src/canton/offer-book.js';
import { transactionOf } from '../src/canton/participant.js';
import {
  type CreatedEvent,
  decodeTransaction,
  type JsGetUpdatesResponse,
  type JsTransaction,
} from '../src/canton/wire/index.js';

const EXAMPLES = '/work/shared/canton/examples';

function transaction(name: string): JsTransaction {
  const item = JSON.parse(readFileSync(`${EXAMPLES}/${name}.json`, 'utf8')) as JsGetUpdatesResponse;
  const tx = transactionOf(item);
  if (tx === undefined) throw new Error(`${name} is not a transaction`);
  return tx;
}

function createdEvents(tx: JsTransaction): CreatedEvent[] {
  return tx.events.flatMap((event) => ('CreatedEvent' in event ? [event.CreatedEvent] : []));
}

const OFFER_ID =
  '00fc774936c91f423c117744102a5996e4dc117f2b6496ef337967a7d2c5d02e4aca1112203c35266c980ae19508cc690cb501f8c767c02bfdbe838f1f89105de6fe59439f';

describe('outcomes of real Canton transfers', () => {
  it('a pre-approved Amulet transfer settled directly', () => {
    const tx = transaction('1-step-transfer');
    expect(transferOutcomeOf(decodeTransaction(tx))).toEqual({
      kind: 'direct',
      updateId: tx.updateId,
      offset: tx.offset,
    });
  });

  it('a transfer instruction is an offer named by the instruction contract id', () => {
    const tx = transaction('transfer-instruction-create');
    expect(transferOutcomeOf(decodeTransaction(tx))).toEqual({
      kind: 'offer',
      updateId: tx.updateId,
      offset: tx.offset,
      offerId: OFFER_ID,
    });
  });

  it('an acceptance decodes to the offered transfer once the book knows the offer', async () => {
    const fetched: string[] = [];
    const book = new OfferBook(async (offerId) => {
      fetched.push(offerId);
      return createdEvents(transaction('transfer-instruction-create')).find(
        (event) => event.contractId === offerId,
      );
    });
    // Not seen before: fetched by contract id first.
    const accepted = await book.decodeTransaction(transaction('transfer-instruction-accept'));
    expect(fetched).toEqual([OFFER_ID]);
    const [event] = accepted.events;
    expect(event).toMatchObject({ kind: 'transfer', offerId: OFFER_ID });

    // Seen created in a transaction read earlier: no fetch.
    const reader = new OfferBook(async (offerId) => {
      throw new Error(`no fetch expected for ${offerId}`);
    });
    await reader.decodeTransaction(transaction('transfer-instruction-create'));
    const again = await reader.decodeTransaction(transaction('transfer-instruction-accept'));
    expect(again.events).toEqual(accepted.events);
  });
});
