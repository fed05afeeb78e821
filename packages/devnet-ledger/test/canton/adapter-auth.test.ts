import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LedgerError, openCantonLedger } from '@poolparty/ledger';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIENCE, SECRET } from '../support/localnet.js';
import { type AdapterWorld, amount, startAdapterWorld } from './adapter-world.js';

/** Only keeps a broken subscription from hanging a test; never part of an assertion. */
const SAFETY_NET_MS = 10_000;

let w: AdapterWorld;
let tokenServer: Server;
let tokenUrl = '';
const tokenRequests: URLSearchParams[] = [];

beforeAll(async () => {
  w = await startAdapterWorld();
  // An OAuth2 token endpoint issuing the participant's user tokens for the right client only.
  tokenServer = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', async () => {
      const form = new URLSearchParams(body);
      tokenRequests.push(form);
      if (form.get('client_secret') !== 'right') {
        response.writeHead(401, { 'content-type': 'application/json' });
        response.end('{"error":"invalid_client"}');
        return;
      }
      const token = await new SignJWT({ scope: 'daml_ledger_api' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(form.get('client_id') ?? '')
        .setAudience(form.get('audience') ?? '')
        .setExpirationTime('10m')
        .sign(new TextEncoder().encode(SECRET));
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 600 }));
    });
  });
  await new Promise<void>((resolve) => tokenServer.listen(0, '127.0.0.1', resolve));
  tokenUrl = `http://127.0.0.1:${(tokenServer.address() as AddressInfo).port}/token`;
});

afterAll(async () => {
  await new Promise((resolve) => tokenServer.close(resolve));
  await w.close();
});

describe('the canton adapter authenticates', () => {
  it('with OAuth2 client credentials, over HTTP and on the WebSocket', async () => {
    const ledger = await w.open({
      auth: {
        kind: 'oauth2',
        tokenUrl,
        clientId: 'poolparty',
        clientSecret: 'right',
        audience: AUDIENCE,
      },
    });
    const start = await ledger.ledgerEnd();
    const outcome = await ledger.submitTransfer({
      commandId: 'oauth2-transfer',
      sender: w.alice,
      receiver: w.bob,
      instrument: w.usd,
      amount: amount('1'),
    });
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), SAFETY_NET_MS);
    let seen: number | null = null;
    for await (const update of ledger.updates(start, { signal: stop.signal })) {
      seen = update.offset;
      break;
    }
    clearTimeout(timer);
    expect(seen).toBe(outcome.offset);
    // Many requests, one token.
    expect(tokenRequests.filter((form) => form.get('client_id') === 'poolparty')).toHaveLength(1);
  });

  it('refuses to open with credentials the participant or the token endpoint rejects', async () => {
    const wrongToken = await openCantonLedger(
      w.options({ auth: { kind: 'static', token: 'not-a-jwt' } }),
    ).catch((e: unknown) => e);
    expect(wrongToken).toBeInstanceOf(LedgerError);
    expect((wrongToken as LedgerError).code).toBe('not_authorized');

    const wrongSecret = await openCantonLedger(
      w.options({ auth: { kind: 'hs256', secret: 'other', audience: AUDIENCE } }),
    ).catch((e: unknown) => e);
    expect((wrongSecret as LedgerError).code).toBe('not_authorized');

    const wrongClient = await openCantonLedger(
      w.options({
        auth: { kind: 'oauth2', tokenUrl, clientId: 'poolparty', clientSecret: 'wrong' },
      }),
    ).catch((e: unknown) => e);
    expect((wrongClient as LedgerError).code).toBe('not_authorized');
    expect((wrongClient as LedgerError).message).toContain('invalid_client');

    const unknownUser = await openCantonLedger(
      w.options({ userId: 'nobody', auth: { kind: 'hs256', secret: SECRET, audience: AUDIENCE } }),
    ).catch((e: unknown) => e);
    expect(unknownUser).toBeInstanceOf(LedgerError);
    expect((unknownUser as LedgerError).message).toContain('nobody');

    const noAuth = await openCantonLedger(w.options({ auth: { kind: 'none' } })).catch(
      (e: unknown) => e,
    );
    expect((noAuth as LedgerError).code).toBe('not_authorized');
  });

  it('refuses options that cannot work with a clear RangeError', async () => {
    await expect(openCantonLedger(w.options({ ledgerApiUrl: 'not a url' }))).rejects.toThrow(
      /ledgerApiUrl must be an http\(s\) URL/,
    );
    await expect(openCantonLedger(w.options({ userId: '' }))).rejects.toThrow(/userId/);
    await expect(openCantonLedger(w.options({ submitTimeoutMs: 0 }))).rejects.toThrow(
      /submitTimeoutMs/,
    );
  });
});
