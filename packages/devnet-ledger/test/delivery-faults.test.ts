/**
 * Faults set through `/devnet/faults` reach the devnet ledger server's own update stream, over
 * HTTP and WebSocket: a duplicated delivery arrives twice, a dropped stream ends in a transient
 * Canton error the reader resubscribes after, and with the faults off the stream is whole again.
 */
import { Amount } from '@poolparty/core';
import { decodeUpdatesItem } from '@poolparty/ledger/canton/wire';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { holdingUpdatesRequest } from './support/commands.js';
import { expectCantonError, sharedWorld } from './support/server.js';

const request = holdingUpdatesRequest;

/** The offsets of the transactions among the items, in the order delivered. */
function transactionOffsets(items: readonly unknown[]): number[] {
  return items.flatMap((item) => {
    const decoded = decodeUpdatesItem(item as never);
    return decoded.kind === 'transaction' ? [decoded.update.offset] : [];
  });
}

/** Every message of one WebSocket stream until the server closes it. */
function readStream(url: string, body: unknown): Promise<{ items: unknown[]; code: number }> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/v2/updates`, ['daml.ws.auth']);
  const items: unknown[] = [];
  return new Promise((resolve, reject) => {
    socket.on('error', reject);
    socket.on('open', () => socket.send(JSON.stringify(body)));
    socket.on('message', (data) => items.push(JSON.parse(data.toString())));
    socket.on('close', (code) => resolve({ items, code }));
  });
}

describe('delivery faults on the devnet ledger server', () => {
  const world = sharedWorld();
  let minted: number[] = [];

  const setFaults = async (faults: object) => {
    const answer = await world.post('/devnet/faults', faults);
    expect(answer.status).toBe(200);
  };

  beforeAll(async () => {
    minted = [];
    for (const amount of [1, 2, 3]) {
      const { offset } = await world.ledger.mint({
        owner: world.pool,
        instrument: world.amulet,
        amount: Amount.of(amount),
      });
      minted.push(offset);
    }
  });
  afterEach(() => setFaults({ duplicateDeliveryRate: 0, dropStreamRate: 0 }));

  it('delivers each transaction twice over HTTP and WebSocket when every delivery duplicates', async () => {
    const end = minted.at(-1) ?? 0;
    await setFaults({ duplicateDeliveryRate: 1, seed: 7 });
    const listed = await world.post('/v2/updates', request(world.pool, 0));
    expect(listed.status).toBe(200);
    expect(transactionOffsets(listed.body)).toEqual(minted.flatMap((o) => [o, o]));
    const streamed = await readStream(world.server.url, request(world.pool, 0, end));
    expect(streamed.code).toBe(1000);
    expect(transactionOffsets(streamed.items)).toEqual(minted.flatMap((o) => [o, o]));
    // The ledger counts what it injected (the devnet ledger prints it when it stops).
    expect(world.ledger.faultsInjected().duplicateDeliveries).toBe(2 * minted.length);
  });

  it('breaks the stream after a delivery when every delivery drops, with a transient error', async () => {
    const end = minted.at(-1) ?? 0;
    await setFaults({ dropStreamRate: 1, seed: 7 });
    const listed = await world.post('/v2/updates', request(world.pool, 0));
    expectCantonError(listed, 503, 'SERVICE_NOT_RUNNING');
    const streamed = await readStream(world.server.url, request(world.pool, 0, end));
    expect(streamed.code).toBe(1011);
    expect(transactionOffsets(streamed.items.slice(0, 1))).toEqual([minted[0]]);
    expect(streamed.items.at(-1)).toMatchObject({ code: 'SERVICE_NOT_RUNNING' });
    // The reader resubscribes after what it got and reaches the next update.
    const resumed = await readStream(world.server.url, request(world.pool, minted[0] ?? 0, end));
    expect(transactionOffsets(resumed.items.slice(0, 1))).toEqual([minted[1]]);
  });

  it('streams every transaction once when the faults are off again', async () => {
    const end = minted.at(-1) ?? 0;
    await setFaults({ duplicateDeliveryRate: 0, dropStreamRate: 0 });
    const listed = await world.post('/v2/updates', request(world.pool, 0));
    expect(transactionOffsets(listed.body)).toEqual(minted);
    const streamed = await readStream(world.server.url, request(world.pool, 0, end));
    expect(streamed.code).toBe(1000);
    expect(transactionOffsets(streamed.items)).toEqual(minted);
  });
});
