import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, jwtVerify } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { HS256_TOKEN_LIFETIME_S, LEDGER_API_SCOPE, tokenSource } from '../src/canton/auth.js';
import { LedgerError } from '../src/port.js';

/** A manual clock: tests move it, nothing waits. */
function manualClock(startMs = Date.UTC(2030, 0, 1)) {
  let now = startMs;
  return { nowMs: () => now, advance: (ms: number) => (now += ms) };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });
}

interface TokenEndpoint {
  readonly url: string;
  readonly requests: URLSearchParams[];
  /** What the next answers are: status and body. */
  answer: { status: number; body: unknown };
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))),
  );
});

async function tokenEndpoint(expiresIn = 60): Promise<TokenEndpoint> {
  const endpoint: TokenEndpoint = {
    url: '',
    requests: [],
    answer: { status: 200, body: null },
  };
  const server = createServer(async (request, response) => {
    const form = new URLSearchParams(await readBody(request));
    endpoint.requests.push(form);
    const { status, body } =
      endpoint.answer.body === null
        ? {
            status: 200,
            body: {
              access_token: `token-${endpoint.requests.length}`,
              token_type: 'Bearer',
              expires_in: expiresIn,
            },
          }
        : endpoint.answer;
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(endpoint, { url: `http://127.0.0.1:${port}/oauth/token` });
}

describe('OAuth2 client credentials', () => {
  it('posts the client credentials form, caches the token and refreshes it before it expires', async () => {
    const endpoint = await tokenEndpoint(60);
    const clock = manualClock();
    const source = tokenSource(
      {
        kind: 'oauth2',
        tokenUrl: endpoint.url,
        clientId: 'pool-service',
        clientSecret: 's3cret',
        audience: 'https://ledger.example',
        scope: 'daml_ledger_api',
      },
      'ignored-user',
      { nowMs: clock.nowMs },
    );

    expect(await source.token()).toBe('token-1');
    const form = endpoint.requests[0];
    expect(Object.fromEntries(form ?? [])).toEqual({
      grant_type: 'client_credentials',
      client_id: 'pool-service',
      client_secret: 's3cret',
      audience: 'https://ledger.example',
      scope: 'daml_ledger_api',
    });

    clock.advance(30_000);
    expect(await source.token()).toBe('token-1');
    expect(endpoint.requests).toHaveLength(1);

    // 50 s into a 60 s token: still valid, but inside the refresh margin.
    clock.advance(20_000);
    expect(await source.token()).toBe('token-2');
    expect(endpoint.requests).toHaveLength(2);
    expect(await source.token()).toBe('token-2');
    expect(endpoint.requests).toHaveLength(2);
  });

  it('callers asking at once share one token request', async () => {
    const endpoint = await tokenEndpoint();
    const source = tokenSource(
      { kind: 'oauth2', tokenUrl: endpoint.url, clientId: 'c', clientSecret: 's' },
      'u',
    );
    const tokens = await Promise.all([source.token(), source.token(), source.token()]);
    expect(tokens).toEqual(['token-1', 'token-1', 'token-1']);
    expect(endpoint.requests).toHaveLength(1);
    expect(endpoint.requests[0]?.has('audience')).toBe(false);
  });

  it('refused credentials fail with not_authorized and say why; the next call asks again', async () => {
    const endpoint = await tokenEndpoint();
    endpoint.answer = { status: 401, body: { error: 'invalid_client' } };
    const source = tokenSource(
      { kind: 'oauth2', tokenUrl: endpoint.url, clientId: 'wrong', clientSecret: 's' },
      'u',
    );
    const error = await source.token().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LedgerError);
    expect((error as LedgerError).code).toBe('not_authorized');
    expect((error as LedgerError).message).toContain('invalid_client');
    expect((error as LedgerError).message).toContain('wrong');

    endpoint.answer = { status: 200, body: { access_token: 'fixed', expires_in: 60 } };
    expect(await source.token()).toBe('fixed');
  });

  it('an answer without access_token and an unreachable endpoint are clear errors', async () => {
    const endpoint = await tokenEndpoint();
    endpoint.answer = { status: 200, body: { token_type: 'Bearer' } };
    const source = tokenSource(
      { kind: 'oauth2', tokenUrl: endpoint.url, clientId: 'c', clientSecret: 's' },
      'u',
    );
    await expect(source.token()).rejects.toThrow(/without an access_token/);

    const closed = tokenSource(
      { kind: 'oauth2', tokenUrl: 'http://127.0.0.1:1/token', clientId: 'c', clientSecret: 's' },
      'u',
    );
    const error = (await closed.token().catch((e: unknown) => e)) as LedgerError;
    expect(error.code).toBe('rejected');
    expect(error.message).toMatch(/unreachable/);
  });
});

describe('self-signed HS256 user tokens', () => {
  it('carry the user as subject, the audience and the ledger API scope, and are re-minted before expiry', async () => {
    const clock = manualClock();
    const secret = 'unsafe';
    const source = tokenSource(
      { kind: 'hs256', secret, audience: 'https://canton.network.global' },
      'poolparty',
      { nowMs: clock.nowMs },
    );
    const first = (await source.token()) as string;
    const { payload } = await jwtVerify(first, new TextEncoder().encode(secret), {
      audience: 'https://canton.network.global',
      currentDate: new Date(clock.nowMs()),
    });
    expect(payload.sub).toBe('poolparty');
    expect(payload.scope).toBe(LEDGER_API_SCOPE);
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(HS256_TOKEN_LIFETIME_S);

    clock.advance(1_000);
    expect(await source.token()).toBe(first);
    clock.advance(HS256_TOKEN_LIFETIME_S * 1000 * 0.85);
    const second = (await source.token()) as string;
    expect(second).not.toBe(first);
    expect(decodeJwt(second).exp).toBeGreaterThan(decodeJwt(first).exp ?? 0);
  });
});

describe('no auth and a static token', () => {
  it('answer null and the fixed token', async () => {
    expect(await tokenSource({ kind: 'none' }, 'u').token()).toBeNull();
    expect(await tokenSource({ kind: 'static', token: 'abc' }, 'u').token()).toBe('abc');
  });
});
