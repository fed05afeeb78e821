/**
 * The WebSocket update stream: one GetUpdatesRequest, then the history, then live transactions as
 * they commit, with offset checkpoints carrying the ledger time; authenticated through the
 * `jwt.token.<JWT>` subprotocol when the server requires tokens.
 */
import { Amount } from '@poolparty/core';
import { decodeUpdatesItem } from '@poolparty/ledger/canton/wire';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { HOLDING_FILTER, holdingUpdatesRequest } from './support/commands.js';
import { expectSchema, sharedWorld, startWorld } from './support/server.js';

interface Stream {
  readonly items: unknown[];
  /** Resolves with the first item (from now on, or already received) that satisfies `test`. */
  next(test: (item: unknown) => boolean): Promise<unknown>;
  readonly closed: Promise<{ code: number }>;
  close(): void;
}

function openStream(
  url: string,
  request: unknown,
  protocols: string[] = ['daml.ws.auth'],
  path = '/v2/updates',
): Promise<Stream> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}${path}`, protocols);
  const items: unknown[] = [];
  const waiters: { test: (item: unknown) => boolean; resolve: (item: unknown) => void }[] = [];
  socket.on('message', (data) => {
    const item = JSON.parse(data.toString());
    items.push(item);
    for (const waiter of [...waiters]) {
      if (waiter.test(item)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(item);
      }
    }
  });
  const closed = new Promise<{ code: number }>((resolve) =>
    socket.on('close', (code) => resolve({ code })),
  );
  return new Promise((resolve, reject) => {
    socket.on('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    socket.on('error', reject);
    socket.on('open', () => {
      socket.send(JSON.stringify(request));
      resolve({
        items,
        closed,
        close: () => socket.close(),
        next: (test) => {
          const seen = items.find(test);
          if (seen !== undefined) return Promise.resolve(seen);
          return new Promise((done) => waiters.push({ test, resolve: done }));
        },
      });
    });
  });
}

const request = holdingUpdatesRequest;

const decoded = (item: unknown) => decodeUpdatesItem(item as never);
const isTransactionAt = (offset: number) => (item: unknown) => {
  const d = decoded(item);
  return d.kind === 'transaction' && d.update.offset === offset;
};
const isCheckpointAt = (offset: number) => (item: unknown) => {
  const d = decoded(item);
  return d.kind === 'checkpoint' && d.offset === offset;
};

describe('WebSocket update stream', () => {
  const world = sharedWorld();

  it('delivers the history, a checkpoint at the end, then live transactions as they commit', async () => {
    const end = await world.ledger.ledgerEnd();
    const stream = await openStream(world.server.url, request(world.treasury, 0));
    await stream.next(isCheckpointAt(end));
    const history = stream.items.map(decoded).filter((d) => d.kind === 'transaction');
    expect(history.map((d) => d.kind === 'transaction' && d.update.events[0]?.kind)).toEqual([
      'mint',
      'mint',
    ]);
    const minted = await world.ledger.mint({
      owner: world.treasury,
      instrument: world.amulet,
      amount: Amount.of(3),
    });
    const live = decoded(await stream.next(isTransactionAt(minted.offset)));
    expect(live.kind === 'transaction' && live.update.events).toMatchObject([
      { kind: 'mint', owner: world.treasury },
    ]);
    // Someone else's update is a gap for this reader, closed by the next checkpoint.
    const other = await world.ledger.mint({
      owner: world.pool,
      instrument: world.amulet,
      amount: Amount.of(1),
    });
    await stream.next(isCheckpointAt(other.offset));
    expect(stream.items.some(isTransactionAt(other.offset))).toBe(false);
    for (const item of stream.items) {
      expectSchema('async', 'Either_JsCantonError_JsGetUpdatesResponse', item);
      expectSchema('ledger', 'JsGetUpdatesResponse', item);
    }
    stream.close();
  });

  it('keeps reporting checkpoints with the ledger time while nothing commits', async () => {
    const end = await world.ledger.ledgerEnd();
    const stream = await openStream(world.server.url, request(world.treasury, end));
    const first = decoded(await stream.next(isCheckpointAt(end)));
    const advanced = await world.ledger.advanceClock(60_000);
    const later = decoded(
      await stream.next((item) => {
        const d = decoded(item);
        return d.kind === 'checkpoint' && d.recordTime.getTime() >= advanced.getTime();
      }),
    );
    expect(
      first.kind === 'checkpoint' &&
        later.kind === 'checkpoint' &&
        later.recordTime > first.recordTime,
    ).toBe(true);
    stream.close();
  });

  it('ends the stream after endInclusive', async () => {
    const stream = await openStream(world.server.url, request(world.treasury, 0, 3));
    expect((await stream.closed).code).toBe(1000);
    const offsets = stream.items
      .map(decoded)
      .flatMap((d) => (d.kind === 'transaction' ? [d.update.offset] : []));
    expect(offsets.every((o) => o <= 3)).toBe(true);
  });

  it('serves a stream whose path has an empty segment, as a participant does', async () => {
    const end = await world.ledger.ledgerEnd();
    const stream = await openStream(
      world.server.url,
      request(world.treasury, 0),
      ['daml.ws.auth'],
      '//v2/updates',
    );
    await stream.next(isCheckpointAt(end));
    for (const item of stream.items) expectSchema('ledger', 'JsGetUpdatesResponse', item);
    stream.close();
  });

  it('answers a malformed request with a JsCantonError and closes', async () => {
    const stream = await openStream(world.server.url, { beginExclusive: -1 });
    await stream.closed;
    expect(stream.items).toHaveLength(1);
    expect(stream.items[0]).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expectSchema('async', 'JsCantonError', stream.items[0]);
  });
});

describe('WebSocket update stream when the ledger closes', () => {
  it('reports SERVICE_NOT_RUNNING and closes the stream', async () => {
    const world = await startWorld();
    try {
      const end = await world.ledger.ledgerEnd();
      const stream = await openStream(world.server.url, request(world.treasury, end));
      await stream.next(isCheckpointAt(end));
      await world.ledger.close();
      const failure = await stream.next((item) => (item as { code?: string }).code !== undefined);
      expect(failure).toMatchObject({ code: 'SERVICE_NOT_RUNNING', errorCategory: 1 });
      expectSchema('async', 'JsCantonError', failure);
      expect((await stream.closed).code).toBe(1011);
    } finally {
      await world.server.close();
    }
  });
});

describe('WebSocket active contracts and completions', () => {
  const world = sharedWorld();

  it('streams the active contracts, then closes', async () => {
    const end = await world.ledger.ledgerEnd();
    const stream = await openStream(
      world.server.url,
      {
        activeAtOffset: end,
        eventFormat: { filtersByParty: { [world.treasury]: HOLDING_FILTER } },
      },
      ['daml.ws.auth'],
      '/v2/state/active-contracts',
    );
    expect((await stream.closed).code).toBe(1000);
    for (const item of stream.items) {
      expectSchema('async', 'Either_JsCantonError_JsGetActiveContractsResponse', item);
    }
    const ids = stream.items.map(
      (item) =>
        (item as { contractEntry: { JsActiveContract: { createdEvent: { contractId: string } } } })
          .contractEntry.JsActiveContract.createdEvent.contractId,
    );
    expect(ids.sort()).toEqual(
      (await world.ledger.getHoldings(world.treasury)).map((h) => h.holdingId).sort(),
    );
  });

  it('streams completions of the party’s commands as they commit, with checkpoints', async () => {
    const end = await world.ledger.ledgerEnd();
    const stream = await openStream(
      world.server.url,
      { userId: 'poolparty', parties: [world.treasury], beginExclusive: end },
      ['daml.ws.auth'],
      '/v2/commands/completions',
    );
    const isCompletionCheckpoint = (offset: number) => (item: unknown) =>
      (item as { completionResponse?: { OffsetCheckpoint?: { value: { offset: number } } } })
        .completionResponse?.OffsetCheckpoint?.value.offset === offset;
    await stream.next(isCompletionCheckpoint(end));
    const minted = await world.ledger.mint({
      owner: world.treasury,
      instrument: world.amulet,
      amount: Amount.of(2),
      commandId: 'ws-completion-mint',
    });
    const completion = await stream.next(
      (item) =>
        (item as { completionResponse?: { Completion?: unknown } }).completionResponse
          ?.Completion !== undefined,
    );
    expect(completion).toMatchObject({
      completionResponse: {
        Completion: { value: { commandId: 'ws-completion-mint', offset: minted.offset } },
      },
    });
    for (const item of stream.items) {
      expectSchema('async', 'Either_JsCantonError_CompletionStreamResponse', item);
    }
    stream.close();
  });
});

describe('WebSocket update stream with auth', () => {
  const world = sharedWorld({ auth: true });

  it('refuses the upgrade without a token', async () => {
    await expect(openStream(world.server.url, request(world.treasury, 0))).rejects.toThrow(
      'HTTP 401',
    );
  });

  it('accepts the token as a jwt.token subprotocol', async () => {
    const end = await world.ledger.ledgerEnd();
    const stream = await openStream(world.server.url, request(world.treasury, 0), [
      `jwt.token.${world.token}`,
      'daml.ws.auth',
    ]);
    await stream.next(isCheckpointAt(end));
    expect(stream.items.map(decoded).filter((d) => d.kind === 'transaction')).toHaveLength(2);
    stream.close();
  });
});
