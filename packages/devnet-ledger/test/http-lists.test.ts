/**
 * The HTTP list answers are bounded as a participant bounds them: up to `limit` items, and a
 * 413 JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED when no `limit` is given and the answer would
 * reach the node limit (200) — a reader pages with `limit` or uses the WebSocket.
 */
import { Amount } from '@poolparty/core';
import { decodeUpdatesItem, HOLDING_INTERFACE_ID } from '@poolparty/ledger/canton/wire';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectCantonError, sharedWorld } from './support/server.js';

const HOLDINGS = {
  cumulative: [
    {
      identifierFilter: {
        InterfaceFilter: {
          value: { interfaceId: HOLDING_INTERFACE_ID, includeInterfaceView: true },
        },
      },
    },
  ],
};

describe('HTTP list bounds', () => {
  const world = sharedWorld();
  const MINTS = 210;
  beforeAll(async () => {
    for (let n = 0; n < MINTS; n += 1) {
      await world.ledger.mint({ owner: world.pool, instrument: world.usdcx, amount: Amount.of(1) });
    }
  });

  const updates = (beginExclusive: number, query = '') =>
    world.post(`/v2/updates${query}`, {
      beginExclusive,
      updateFormat: {
        includeTransactions: {
          eventFormat: { filtersByParty: { [world.pool]: HOLDINGS } },
          transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
        },
      },
    });

  it('refuses an unbounded update list that reaches the node limit', async () => {
    const answer = await updates(0);
    expectCantonError(answer, 413, 'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED');
  });

  it('pages through the updates with limit, the last page ending in a checkpoint', async () => {
    const end = await world.ledger.ledgerEnd();
    const seen: number[] = [];
    let from = 0;
    let checkpoint: number | null = null;
    while (checkpoint === null) {
      const page = await updates(from, '?limit=100');
      expect(page.status).toBe(200);
      expect(page.body.length).toBeLessThanOrEqual(100);
      for (const item of page.body) {
        const decoded = decodeUpdatesItem(item);
        if (decoded.kind === 'transaction') seen.push(decoded.update.offset);
        if (decoded.kind === 'checkpoint') checkpoint = decoded.offset;
      }
      from = seen.at(-1) ?? from;
    }
    expect(checkpoint).toBe(end);
    expect(seen).toHaveLength(MINTS);
    expect(new Set(seen).size).toBe(MINTS);
  });

  it('bounds the active contracts the same way', async () => {
    const end = await world.ledger.ledgerEnd();
    const request = {
      activeAtOffset: end,
      eventFormat: { filtersByParty: { [world.pool]: HOLDINGS } },
    };
    const unbounded = await world.post('/v2/state/active-contracts', request);
    expectCantonError(unbounded, 413, 'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED');
    const limited = await world.post('/v2/state/active-contracts?limit=200', request);
    expect(limited.status).toBe(200);
    expect(limited.body).toHaveLength(200);
  });
});
