import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Amount } from '@poolparty/core';
import { afterEach, describe, expect, it } from 'vitest';
import { tokenSource } from '../src/canton/auth.js';
import { JsonHttpClient } from '../src/canton/http.js';
import { httpUpdates, type StreamContext } from '../src/canton/update-stream.js';
import type { JsGetUpdatesResponse } from '../src/canton/wire/index.js';
import { LedgerError, type LedgerUpdate } from '../src/port.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((r) => server.close(r))));
});

/**
 * A participant whose POST /v2/updates answers at most `cap` items of the requested range,
 * whatever `limit` asks, with transactions at `offsets` (the others are not visible).
 */
async function participant(offsets: readonly number[], cap: number, listLimit = Infinity) {
  const requests: { beginExclusive: number; endInclusive: number }[] = [];
  const limits: number[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const limit = Number(new URL(request.url ?? '', 'http://x').searchParams.get('limit'));
      limits.push(limit);
      // Like Canton: a limit above the list limit is ignored, and the list is then refused.
      if (limit > listLimit) {
        response.writeHead(413, { 'content-type': 'text/plain' });
        response.end('Content Too Large');
        return;
      }
      const { beginExclusive, endInclusive } = JSON.parse(body);
      requests.push({ beginExclusive, endInclusive });
      const items = offsets
        .filter((offset) => offset > beginExclusive && offset <= endInclusive)
        .slice(0, cap)
        .map((offset) => ({ update: { Transaction: { value: { offset } } } }));
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(items));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, limits };
}

function context(url: string, signal: AbortSignal): StreamContext {
  return {
    http: new JsonHttpClient(tokenSource({ kind: 'none' }, 'u')),
    ledgerApiUrl: url,
    scope: { kind: 'any' },
    parties: undefined,
    signal,
    onRecordTime: () => undefined,
    async decode(item: JsGetUpdatesResponse) {
      const offset = (item.update as { Transaction: { value: { offset: number } } }).Transaction
        .value.offset;
      const update: LedgerUpdate = {
        offset,
        updateId: `u-${offset}`,
        recordTime: new Date(0),
        commandId: null,
        trafficBytes: null,
        events: [
          {
            kind: 'mint',
            owner: 'o::1',
            instrument: { admin: 'a::1', id: 'X' },
            amount: Amount.of(1),
          },
        ],
      };
      return { kind: 'transaction', update };
    },
  };
}

describe('HTTP update pages', () => {
  it('a participant cutting pages short loses nothing: the next page starts after the last item', async () => {
    const offsets = [2, 3, 5, 8, 9];
    const { url, requests } = await participant(offsets, 2);
    const stop = new AbortController();
    const seen: number[] = [];
    for await (const update of httpUpdates(context(url, stop.signal), 1, async () => 10)) {
      seen.push(update.offset);
      if (seen.length === offsets.length) stop.abort();
    }
    expect(seen).toEqual(offsets);
    expect(requests.slice(0, 3)).toEqual([
      { beginExclusive: 1, endInclusive: 10 },
      { beginExclusive: 3, endInclusive: 10 },
      { beginExclusive: 8, endInclusive: 10 },
    ]);
  });

  it('a participant refusing the page size as too large is asked for fewer items', async () => {
    const { url, limits } = await participant([2, 3], 10, 60);
    const stop = new AbortController();
    const seen: number[] = [];
    for await (const update of httpUpdates(context(url, stop.signal), 1, async () => 4)) {
      seen.push(update.offset);
      if (seen.length === 2) stop.abort();
    }
    expect(seen).toEqual([2, 3]);
    expect(limits.slice(0, 3)).toEqual([200, 100, 50]);
  });

  it('a failed page ends the subscription with stream_dropped; refused credentials stay refused', async () => {
    const failing = async (status: number) => {
      const server = createServer((_request, response) => {
        response.writeHead(status, { 'content-type': 'text/plain' });
        response.end('no');
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const stop = new AbortController();
      try {
        for await (const _update of httpUpdates(context(url, stop.signal), 0, async () => 3)) {
          // nothing arrives
        }
      } catch (error) {
        return error as LedgerError;
      } finally {
        stop.abort();
      }
      throw new Error('the subscription ended without an error');
    };
    const dropped = await failing(503);
    expect(dropped).toBeInstanceOf(LedgerError);
    expect(dropped.code).toBe('stream_dropped');
    expect((await failing(401)).code).toBe('not_authorized');
  });
});
