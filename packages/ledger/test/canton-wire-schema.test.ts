/**
 * The encoder writes what the JSON Ledger API 3.4.12 document describes: its transactions,
 * update items and created events validate against the vendored OpenAPI schemas, checked
 * closed (no property the document does not name), for every kind of update the local ledger
 * makes.
 */
import { readFileSync } from 'node:fs';
import { Amount, type Instrument } from '@poolparty/core';
import { Ajv, type ValidateFunction } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  encodeAllocationCreated,
  encodeCheckpoint,
  encodeHoldingCreated,
  encodeTransaction,
  encodeTransactionItem,
  encodeTransferInstructionCreated,
  type JsTransaction,
  projectTransaction,
} from '../src/canton/wire/index.js';
import { openLocalLedger } from '../src/index.js';
import type { TransferOffer } from '../src/port.js';
import { settleWithdrawAndCancel } from './support/allocation-updates.js';

const OPENAPI = '/work/shared/canton/ledger-api-3.4.12/openapi.yaml';
const EXAMPLES = '/work/shared/canton/examples';
const SYNCHRONIZER = 'global-domain::1220bb';

/** Every object schema that lists its properties admits no others: typos and strays fail. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy = Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, closed(value)]),
  ) as Record<string, unknown>;
  if (copy.properties !== undefined && copy.additionalProperties === undefined) {
    copy.additionalProperties = false;
  }
  return copy;
}

let schemaOf: (name: string) => ValidateFunction;

beforeAll(() => {
  const document = parse(readFileSync(OPENAPI, 'utf8')) as { components: unknown };
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addFormat('int32', true).addFormat('int64', true).addFormat('binary', true);
  ajv.addSchema({ $id: 'ledger-api', components: closed(document.components) });
  schemaOf = (name) => {
    const validate = ajv.getSchema(`ledger-api#/components/schemas/${name}`);
    if (validate === undefined) throw new Error(`no schema ${name}`);
    return validate;
  };
});

function problems(name: string, value: unknown): string[] {
  const validate = schemaOf(name);
  if (validate(value)) return [];
  return (validate.errors ?? []).map(
    (e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`,
  );
}

async function everyKindOfUpdate() {
  const ledger = await openLocalLedger({});
  const admin = (await ledger.createParty({ hint: 'registry' })).partyId;
  const instrument: Instrument = { admin, id: 'USDCx' };
  await ledger.createInstrument(instrument);
  const alice = (await ledger.createParty({ hint: 'alice', preapprovals: 'all' })).partyId;
  const bob = (await ledger.createParty({ hint: 'bob' })).partyId;
  await ledger.mint({ owner: alice, instrument, amount: Amount.of(100), commandId: 'mint' });
  await ledger.mint({ owner: bob, instrument, amount: Amount.of(100) });
  await ledger.submitTransfer({
    commandId: 'direct',
    sender: bob,
    receiver: alice,
    instrument,
    amount: Amount.parse('12.5'),
    meta: { 'splice.lfdecentralizedtrust.org/reason': 'invoice 7' },
  });
  const offerIds: string[] = [];
  for (const n of [1, 2, 3]) {
    const outcome = await ledger.submitTransfer({
      commandId: `offer-${n}`,
      sender: alice,
      receiver: bob,
      instrument,
      amount: Amount.of(n),
    });
    if (outcome.kind === 'offer') offerIds.push(outcome.offerId);
  }
  const [accepted, rejected, withdrawn] = offerIds;
  if (accepted === undefined || rejected === undefined || withdrawn === undefined) {
    throw new Error('expected three offers');
  }
  await ledger.acceptOffer({ commandId: 'accept', offerId: accepted, actor: bob });
  await ledger.rejectOffer({ commandId: 'reject', offerId: rejected, actor: bob });
  await ledger.withdrawOffer({ commandId: 'withdraw', offerId: withdrawn, actor: alice });
  await ledger.burn({ owner: alice, instrument, amount: Amount.of(30), commandId: 'burn' });
  const venue = (await ledger.createParty({ hint: 'venue' })).partyId;
  await settleWithdrawAndCancel(ledger, { alice, bob, venue }, instrument);

  const offers = new Map<string, TransferOffer>();
  const rendered: { tx: JsTransaction; kinds: string[] }[] = [];
  const created = [];
  const allocationsCreated = [];
  for (let offset = 1; offset <= (await ledger.ledgerEnd()); offset++) {
    const update = ledger.updateAt(offset);
    const changes = ledger.holdingChangesAt(offset);
    if (update === undefined || changes === undefined) throw new Error(`no update at ${offset}`);
    for (const event of update.events) {
      if (event.kind === 'offer_created') offers.set(event.offerId, event);
      if (event.kind === 'allocation_created') allocationsCreated.push(event.allocation);
    }
    const tx = encodeTransaction({ update, ...changes, offers, synchronizerId: SYNCHRONIZER });
    rendered.push({ tx, kinds: update.events.map((e) => e.kind) });
    created.push(...changes.created.map((holding) => ({ holding, offset })));
  }
  await ledger.close();
  return {
    rendered,
    created,
    offers: [...offers.values()],
    allocations: allocationsCreated,
    parties: [alice, bob],
  };
}

describe('encoder output against the JSON Ledger API 3.4.12 schemas', () => {
  it('every transaction is a valid JsTransaction and updates item, also as each party sees it', async () => {
    const { rendered, parties } = await everyKindOfUpdate();
    const kinds = new Set(rendered.flatMap(({ kinds }) => kinds));
    expect([...kinds].sort()).toEqual(
      [
        'allocation_cancelled',
        'allocation_created',
        'allocation_executed',
        'allocation_withdrawn',
        'burn',
        'mint',
        'offer_created',
        'offer_rejected',
        'offer_withdrawn',
        'transfer',
      ].sort(),
    );
    for (const { tx, kinds } of rendered) {
      expect(problems('JsTransaction', tx), kinds.join()).toEqual([]);
      expect(problems('JsGetUpdatesResponse', encodeTransactionItem(tx))).toEqual([]);
      for (const party of parties) {
        const seen = projectTransaction(tx, [party]);
        if (seen !== null) expect(problems('JsTransaction', seen)).toEqual([]);
      }
    }
  });

  it('holdings, instructions and allocations are valid CreatedEvents and active contracts', async () => {
    const { created, offers, allocations } = await everyKindOfUpdate();
    expect(created.some(({ holding }) => holding.lock !== null)).toBe(true);
    for (const { holding, offset } of created) {
      const event = encodeHoldingCreated(holding, offset, SYNCHRONIZER, { createdAt: new Date() });
      expect(problems('CreatedEvent', event)).toEqual([]);
      const active = {
        contractEntry: {
          JsActiveContract: {
            createdEvent: event,
            synchronizerId: SYNCHRONIZER,
            reassignmentCounter: 0,
          },
        },
      };
      expect(problems('JsGetActiveContractsResponse', active)).toEqual([]);
    }
    for (const offer of offers) {
      const event = encodeTransferInstructionCreated(offer, 5, SYNCHRONIZER);
      expect(problems('CreatedEvent', event)).toEqual([]);
    }
    expect(allocations).toHaveLength(4);
    for (const allocation of allocations) {
      expect(problems('CreatedEvent', encodeAllocationCreated(allocation, 5))).toEqual([]);
    }
  });

  it('checkpoints are valid updates items', () => {
    expect(problems('JsGetUpdatesResponse', encodeCheckpoint(9, new Date(), SYNCHRONIZER))).toEqual(
      [],
    );
  });

  it('the check itself rejects what 3.4.12 does not allow: the older golden transactions', () => {
    const golden = JSON.parse(readFileSync(`${EXAMPLES}/1-step-transfer.json`, 'utf8'));
    const found = problems('JsGetUpdatesResponse', golden).join('\n');
    expect(found).toContain('acsDelta');
    expect(found).toContain('representativePackageId');
    const stray = {
      ...encodeHoldingCreated(
        {
          holdingId: 'h-1',
          owner: 'alice::1220',
          instrument: { admin: 'registry::1220', id: 'USDCx' },
          amount: Amount.of(1),
          lock: null,
        },
        1,
        SYNCHRONIZER,
      ),
      contractKey: null,
      synchronizerId: SYNCHRONIZER,
    };
    expect(problems('CreatedEvent', stray).join('\n')).toContain('synchronizerId');
  });
});
