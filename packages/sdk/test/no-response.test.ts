/**
 * A request that gets no response says, in its message alone, what it tried to reach and why it
 * failed: an app pointed at the wrong port logs one line that names the URL and the refusal,
 * which Node's `fetch` keeps in a nested cause under a bare "fetch failed".
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Devnet } from '../src/devnet/index.js';
import { reasonOf } from '../src/http/no-response.js';
import { NetworkError, PoolParty, TimeoutError } from '../src/index.js';
import { fakeFetch, hangingReply } from './support/fake-fetch.js';

/** A port nothing listens on: taken from the system, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

describe('a request to a closed port', () => {
  it('is a NetworkError whose one-line message names the URL and the refusal', async () => {
    const port = await closedPort();
    const pp = new PoolParty({ apiKey: 'pp_test_key', baseUrl: `http://127.0.0.1:${port}` });
    const error = await pp.quotes
      .get({ from: 'Amulet', to: 'USDCx', amount: '100', poolId: 'amulet-usdcx' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toBe('network_error');
    expect((error as Error).message).toBe(
      `No response from GET http://127.0.0.1:${port}/v1/quotes: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
  });

  it('says the same from the devnet entry', async () => {
    const port = await closedPort();
    const devnet = new Devnet({ baseUrl: `http://127.0.0.1:${port}` });
    const error = await devnet.createParty({ partyHint: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^No response from POST http://127\\.0\\.0\\.1:${port}/devnet/\\S+: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}$`,
      ),
    );
  });
});

describe('a request without an answer in time', () => {
  it('is a TimeoutError naming the URL and the timeout', async () => {
    const { fetch } = fakeFetch(hangingReply);
    const pp = new PoolParty({
      apiKey: 'pp_test_key',
      baseUrl: 'https://api.test.example',
      fetch,
      timeout: 5,
      maxRetries: 0,
    });
    const error = await pp.tokens.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toBe(
      'No response from GET https://api.test.example/v1/tokens within 5 ms',
    );
  });
});

describe('the reason of a failure', () => {
  it('is the deepest message in the chain of causes', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
      code: 'ECONNREFUSED',
    });
    expect(reasonOf(new TypeError('fetch failed', { cause: refused }))).toBe(
      'connect ECONNREFUSED 127.0.0.1:1',
    );
  });

  it('reads an AggregateError by its first error, else its code', () => {
    const both = new AggregateError([new Error('connect ECONNREFUSED ::1:1')], '');
    expect(reasonOf(new TypeError('fetch failed', { cause: both }))).toBe(
      'connect ECONNREFUSED ::1:1',
    );
    const bare = Object.assign(new AggregateError([], ''), { code: 'ECONNREFUSED' });
    expect(reasonOf(new TypeError('fetch failed', { cause: bare }))).toBe('ECONNREFUSED');
  });

  it('keeps a browser’s lone message, and a thrown non-error as text', () => {
    expect(reasonOf(new TypeError('Failed to fetch'))).toBe('Failed to fetch');
    expect(reasonOf('socket closed\nby peer')).toBe('socket closed by peer');
  });
});
