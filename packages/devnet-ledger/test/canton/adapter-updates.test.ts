import type { AddressInfo } from 'node:net';
import { createServer, type Server, Socket } from 'node:net';
import {
  type CantonLedger,
  LedgerError,
  type LedgerEvent,
  type LedgerUpdate,
  REASON_META_KEY,
  type UpdateSubscription,
} from '@poolparty/ledger';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AdapterWorld, amount, offerToCarol, startAdapterWorld } from './adapter-world.js';

/** Only keeps a broken subscription from hanging a test; never part of an assertion. */
const SAFETY_NET_MS = 10_000;

let sequence = 0;
function cmd(label: string): string {
  sequence += 1;
  return `${label}-${sequence}`;
}

/** The first `count` updates of a subscription from `fromOffset`. */
async function take(
  ledger: CantonLedger,
  fromOffset: number,
  count: number,
  subscription: Omit<UpdateSubscription, 'signal'> = {},
): Promise<LedgerUpdate[]> {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), SAFETY_NET_MS);
  const updates: LedgerUpdate[] = [];
  try {
    for await (const update of ledger.updates(fromOffset, {
      ...subscription,
      signal: stop.signal,
    })) {
      updates.push(update);
      if (updates.length === count) break;
    }
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
  return updates;
}

function kinds(updates: readonly LedgerUpdate[]): LedgerEvent['kind'][][] {
  return updates.map((u) => u.events.map((e) => e.kind));
}

/** Four updates touching alice: direct to bob, offer to carol and its acceptance, offer rejected. */
async function traffic(w: AdapterWorld) {
  const start = await w.canton.ledgerEnd();
  const direct = await w.canton.submitTransfer({
    commandId: cmd('direct'),
    sender: w.alice,
    receiver: w.bob,
    instrument: w.usd,
    amount: amount('1.5'),
    meta: { [REASON_META_KEY]: 'order 1' },
  });
  const offer = await offerToCarol(w, cmd('offer'), '2');
  const accepted = await w.canton.acceptOffer({
    commandId: cmd('accept'),
    offerId: offer.offerId,
    actor: w.carol,
  });
  const second = await offerToCarol(w, cmd('offer'), '3');
  const rejected = await w.canton.rejectOffer({
    commandId: cmd('reject'),
    offerId: second.offerId,
    actor: w.carol,
  });
  return { start, direct, offer, accepted, second, rejected };
}

describe.each(['websocket', 'http'] as const)('the update stream over %s', (transport) => {
  let w: AdapterWorld;
  beforeAll(async () => {
    w = await startAdapterWorld({ transport });
  });
  afterAll(async () => {
    await w.close();
  });

  it('delivers the token-standard events of every update in offset order', async () => {
    const t = await traffic(w);
    const updates = await take(w.canton, t.start, 5);
    expect(updates.map((u) => u.offset)).toEqual([
      t.direct.offset,
      t.offer.offset,
      t.accepted.offset,
      t.second.offset,
      t.rejected.offset,
    ]);
    expect(kinds(updates)).toEqual([
      ['transfer'],
      ['offer_created'],
      ['transfer'],
      ['offer_created'],
      ['offer_rejected'],
    ]);
    const [direct, , accepted, , rejected] = updates.map((u) => u.events[0]);
    expect(direct).toMatchObject({
      kind: 'transfer',
      sender: w.alice,
      receiver: w.bob,
      instrument: w.usd,
      amount: amount('1.5'),
      meta: { [REASON_META_KEY]: 'order 1' },
      offerId: null,
    });
    expect(accepted).toMatchObject({
      kind: 'transfer',
      receiver: w.carol,
      offerId: t.offer.offerId,
    });
    expect(rejected).toMatchObject({
      kind: 'offer_rejected',
      offerId: t.second.offerId,
      sender: w.alice,
      amount: amount('3'),
    });
    expect(updates[0]?.commandId).toBe(
      (await w.canton.lookupCommand(updates[0]?.commandId ?? ''))?.commandId,
    );
  });

  it('a subscription for some parties sees only the updates that name them', async () => {
    const t = await traffic(w);
    const [first] = await take(w.canton, t.start, 1, { parties: [w.bob] });
    expect(first?.offset).toBe(t.direct.offset);
    const carols = await take(w.canton, t.start, 4, { parties: [w.carol] });
    expect(carols.map((u) => u.offset)).toEqual([
      t.offer.offset,
      t.accepted.offset,
      t.second.offset,
      t.rejected.offset,
    ]);
  });

  it('a reader that starts after an offer was made still reads its rejection in full', async () => {
    const offer = await w.canton.submitTransfer({
      commandId: cmd('offer'),
      sender: w.alice,
      receiver: w.carol,
      instrument: w.eur,
      amount: amount('1'),
    });
    if (offer.kind !== 'offer') throw new Error('expected an offer');
    const fresh = await w.open();
    await w.canton.withdrawOffer({
      commandId: cmd('withdraw'),
      offerId: offer.offerId,
      actor: w.alice,
    });
    const [withdrawn] = await take(fresh, offer.offset, 1);
    expect(withdrawn?.events).toEqual([
      expect.objectContaining({
        kind: 'offer_withdrawn',
        offerId: offer.offerId,
        sender: w.alice,
        receiver: w.carol,
        amount: amount('1'),
      }),
    ]);
  });

  it('live updates arrive as they commit; aborting ends the subscription quietly', async () => {
    const end = await w.canton.ledgerEnd();
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), SAFETY_NET_MS);
    const iterator = w.canton.updates(end, { signal: stop.signal })[Symbol.asyncIterator]();
    const next = iterator.next();
    const outcome = await w.canton.submitTransfer({
      commandId: cmd('live'),
      sender: w.alice,
      receiver: w.bob,
      instrument: w.usd,
      amount: amount('1'),
    });
    const first = await next;
    expect(first.done).toBe(false);
    expect(first.value?.offset).toBe(outcome.offset);
    const after = iterator.next();
    stop.abort();
    clearTimeout(timer);
    expect(await after).toEqual({ done: true, value: undefined });
  });

  it('closing the adapter ends its subscriptions', async () => {
    const other = await w.open();
    const iterator = other.updates(await other.ledgerEnd())[Symbol.asyncIterator]();
    const next = iterator.next();
    await other.close();
    expect((await next).done).toBe(true);
  });
});

describe('a dropped connection', () => {
  let w: AdapterWorld;
  let proxy: Server;
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    w = await startAdapterWorld();
    const target = new URL(w.server.ledgerApiUrl);
    // A TCP relay in front of the server, so the test can cut connections.
    proxy = createServer((client) => {
      const upstream = new Socket();
      upstream.connect(Number(target.port), target.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  });
  afterEach(() => {
    for (const socket of sockets) socket.destroy();
  });
  afterAll(async () => {
    await new Promise((resolve) => proxy.close(resolve));
    await w.close();
  });

  it('ends the WebSocket subscription with stream_dropped; resubscribing from the last offset continues', async () => {
    const { port } = proxy.address() as AddressInfo;
    const relayed = await w.open({ ledgerApiUrl: `http://127.0.0.1:${port}` });
    const start = await relayed.ledgerEnd();
    const send = (label: string) =>
      w.canton.submitTransfer({
        commandId: cmd(label),
        sender: w.alice,
        receiver: w.bob,
        instrument: w.usd,
        amount: amount('1'),
      });
    const first = await send('before-drop');
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), SAFETY_NET_MS);
    const seen: number[] = [];
    let failure: unknown = null;
    try {
      for await (const update of relayed.updates(start, { signal: stop.signal })) {
        seen.push(update.offset);
        for (const socket of sockets) socket.destroy();
      }
    } catch (error) {
      failure = error;
    } finally {
      clearTimeout(timer);
    }
    expect(seen).toEqual([first.offset]);
    expect(failure).toBeInstanceOf(LedgerError);
    expect((failure as LedgerError).code).toBe('stream_dropped');
    expect((failure as LedgerError).retryable).toBe(true);

    const second = await send('after-drop');
    const resumed = await take(relayed, first.offset, 1);
    expect(resumed.map((u) => u.offset)).toEqual([second.offset]);
  });
});
