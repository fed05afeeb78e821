/**
 * `pp.atomicSwaps` over a scripted fetch: prepare sends the wallet's key fingerprint under an
 * idempotency key, and the disclosed input holdings as given; `verify()` reads the legs the prepared transaction really holds and refuses
 * one that debits anything but the stated input or credits less than the stated output;
 * `execute(signer)` signs the hash only after that, and sends the signature; `on()` and `wait()`
 * follow the swap by its event stream, reading it only when the stream is refused; `cancel()`
 * before signing.
 */
import { describe, expect, it } from 'vitest';
import { type AtomicSwap, type WalletSigner, withAtomicSwaps } from '../src/atomic/index.js';
import { ValidationError } from '../src/index.js';
import { eventStream, fakeFetch, json, problem } from './support/fake-fetch.js';
import { preparedTransactionOf, type TestTransfer } from './support/prepared-transaction.js';
import { BASE, testClient } from './support/test-client.js';

const TRADER = `alice::1220${'a1'.repeat(32)}`;
const POOL = `amulet-usdcx-swap::1220${'b2'.repeat(32)}`;
const DSO = `DSO::1220${'0'.repeat(64)}`;
const CIRCLE = `circle::1220${'f'.repeat(64)}`;
const FINGERPRINT = `1220${'c3'.repeat(32)}`;
const ID = 'atm_7KQ2M9XC4RT0W8N5PJ3HVB6D1F';
const HASH = Buffer.from(new Uint8Array(32).fill(5)).toString('base64');

const INPUT_LEG: TestTransfer = {
  sender: TRADER,
  receiver: POOL,
  amount: '100.0000000000',
  admin: DSO,
  id: 'Amulet',
};
const OUTPUT_LEG: TestTransfer = {
  sender: POOL,
  receiver: TRADER,
  amount: '14.1570000000',
  admin: CIRCLE,
  id: 'USDCx',
};

function swapWith(
  transfers: readonly TestTransfer[],
  overrides: Partial<AtomicSwap> = {},
): AtomicSwap {
  return {
    atomicSwapId: ID,
    poolId: 'amulet-usdcx',
    status: 'prepared',
    traderParty: TRADER,
    keyFingerprint: FINGERPRINT,
    input: { sender: TRADER, receiver: POOL, token: 'Amulet', tokenAdmin: DSO, amount: '100' },
    output: {
      sender: POOL,
      receiver: TRADER,
      token: 'USDCx',
      tokenAdmin: CIRCLE,
      amount: '14.157',
    },
    quotedOutput: '14.3',
    fees: {
      networkFeeAmount: '1',
      poolFeeAmount: '0.297',
      lpFeeAmount: '0.22275',
      platformFeeAmount: '0.07425',
      inputAmountAfterPoolFee: '98.703',
    },
    preparedTransaction: preparedTransactionOf(transfers),
    preparedTransactionHash: HASH,
    hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
    expiresAt: '2026-11-22T13:41:00.000Z',
    failure: null,
    updateId: null,
    excess: null,
    createdAt: '2026-11-22T13:40:00.000Z',
    updatedAt: '2026-11-22T13:40:00.000Z',
    ...overrides,
  };
}

const GOOD = swapWith([INPUT_LEG, OUTPUT_LEG]);
const COMPLETED = { ...GOOD, status: 'completed', updateId: 'upd-1', excess: '0.112' } as const;

function signer(signed: Uint8Array[] = []): WalletSigner {
  return {
    partyId: TRADER,
    fingerprint: FINGERPRINT,
    publicKey: new Uint8Array(32).fill(7),
    signHash: (hash) => {
      signed.push(hash);
      return new Uint8Array(64).fill(9);
    },
  };
}

const client = (fetch: Parameters<typeof testClient>[0]) => withAtomicSwaps(testClient(fetch));

const PARAMS = {
  fromToken: 'Amulet',
  toToken: 'USDCx',
  amount: '100',
  keyFingerprint: FINGERPRINT,
  poolId: 'amulet-usdcx',
};

describe('pp.atomicSwaps', () => {
  it('prepares with the wallet token, the key fingerprint and an idempotency key', async () => {
    const fake = fakeFetch(json(GOOD, 201));
    const swap = await client(fake.fetch).atomicSwaps.create({
      ...PARAMS,
      slippageTolerance: 0.01,
    });
    expect(swap.status).toBe('prepared');
    const [sent] = fake.requests;
    expect(sent?.url).toBe(`${BASE}/v1/atomic-swaps`);
    expect(sent?.body).toEqual({ ...PARAMS, slippageTolerance: 0.01 });
    expect(sent?.headers.authorization).toBe('Bearer wallet-token');
    expect(sent?.headers['idempotency-key']).toMatch(/\S+/);
  });

  it('sends the input holdings a trader hosted elsewhere discloses, and refuses a blank one', async () => {
    const holding = {
      contractId: '00ab',
      templateId: '#splice-amulet:Splice.Amulet:Amulet',
      createdEventBlob: 'CgMyLjE=',
      synchronizerId: 'global-domain::1220aa',
    };
    const fake = fakeFetch(json(GOOD, 201));
    const pp = client(fake.fetch);
    // Only the four fields of a disclosed contract go on the wire.
    await pp.atomicSwaps.create({ ...PARAMS, inputHoldings: [{ ...holding, extra: 1 } as never] });
    expect(fake.requests[0]?.body).toEqual({ ...PARAMS, inputHoldings: [holding] });
    await expect(
      pp.atomicSwaps.create({ ...PARAMS, inputHoldings: [{ ...holding, createdEventBlob: '' }] }),
    ).rejects.toBeInstanceOf(ValidationError);
    expect(fake.requests).toHaveLength(1);
  });

  it('reads the legs of the prepared transaction and finds them as stated', async () => {
    const fake = fakeFetch(json(GOOD, 201));
    const swap = await client(fake.fetch).atomicSwaps.create(PARAMS);
    const verified = await swap.verify();
    expect(verified.input).toMatchObject({
      sender: TRADER,
      receiver: POOL,
      amount: '100.0000000000',
    });
    expect(verified.output).toMatchObject({
      sender: POOL,
      receiver: TRADER,
      amount: '14.1570000000',
    });
    expect(verified.hashChecked).toBe(false);
  });

  it.each([
    [
      'an output changed to less than stated',
      [INPUT_LEG, { ...OUTPUT_LEG, amount: '14.1569999999' }],
    ],
    ['an input above the stated one', [{ ...INPUT_LEG, amount: '100.0000000001' }, OUTPUT_LEG]],
    [
      'the input sent to someone else',
      [{ ...INPUT_LEG, receiver: `mallory::1220${'d'.repeat(64)}` }, OUTPUT_LEG],
    ],
    [
      'a second debit of the trader',
      [INPUT_LEG, OUTPUT_LEG, { ...INPUT_LEG, amount: '1.0000000000' }],
    ],
    ['another output token', [INPUT_LEG, { ...OUTPUT_LEG, id: 'CBTC' }]],
    ['no output at all', [INPUT_LEG]],
  ] as const)('refuses to sign %s, sending nothing', async (_case, transfers) => {
    const fake = fakeFetch(json(swapWith(transfers), 201), json(COMPLETED));
    const swap = await client(fake.fetch).atomicSwaps.create(PARAMS);
    await expect(swap.verify()).rejects.toBeInstanceOf(ValidationError);
    const signed: Uint8Array[] = [];
    await expect(swap.execute(signer(signed))).rejects.toBeInstanceOf(ValidationError);
    expect(signed).toEqual([]);
    expect(fake.requests).toHaveLength(1);
  });

  it('refuses a transaction whose hash is not the stated one, when given the hasher', async () => {
    const swap = await client(fakeFetch(json(GOOD, 201)).fetch).atomicSwaps.create(PARAMS);
    await expect(swap.verify({ hashPreparedTransaction: () => HASH })).resolves.toMatchObject({
      hashChecked: true,
    });
    await expect(swap.verify({ hashPreparedTransaction: () => 'b3RoZXI=' })).rejects.toBeInstanceOf(
      ValidationError,
    );
  });

  it('executes: signs the hash bytes and sends the signature with the public key', async () => {
    const fake = fakeFetch(json(GOOD, 201), json(COMPLETED));
    const swap = await client(fake.fetch).atomicSwaps.create(PARAMS);
    const signed: Uint8Array[] = [];
    const done = await swap.execute(signer(signed));
    expect(done).toMatchObject({ status: 'completed', updateId: 'upd-1' });
    expect(signed).toEqual([new Uint8Array(32).fill(5)]);
    const execute = fake.requests[1];
    expect(execute?.url).toBe(`${BASE}/v1/atomic-swaps/${ID}/execute`);
    expect(execute?.body).toEqual({
      signature: Buffer.from(new Uint8Array(64).fill(9)).toString('base64'),
      publicKey: Buffer.from(new Uint8Array(32).fill(7)).toString('base64'),
    });
    expect(swap.status).toBe('completed');
  });

  it('refuses a signer of another party or key before signing', async () => {
    const swap = await client(fakeFetch(json(GOOD, 201)).fetch).atomicSwaps.create(PARAMS);
    const signed: Uint8Array[] = [];
    await expect(
      swap.execute({ ...signer(signed), fingerprint: `1220${'e'.repeat(64)}` }),
    ).rejects.toBeInstanceOf(ValidationError);
    expect(signed).toEqual([]);
  });

  it('follows the swap by its event stream: each state reached told once, wait() at its end', async () => {
    const executing = { ...GOOD, status: 'executing' } as const;
    const frame = (swap: AtomicSwap, id: number) =>
      `event: ${swap.status}\nid: ${id}\ndata: ${JSON.stringify(swap)}\n\n`;
    const frames = [frame(GOOD, 1), frame(executing, 2), frame(COMPLETED, 3)];
    const fake = fakeFetch((request) =>
      request.url.endsWith('/events') ? eventStream(frames) : json(GOOD),
    );
    const followed = await client(fake.fetch).atomicSwaps.get(ID);
    const told: string[] = [];
    followed
      .on('executing', (swap) => told.push(swap.status))
      .on('completed', (swap) => told.push(swap.status));
    expect((await followed.wait()).status).toBe('completed');
    expect(told).toEqual(['executing', 'completed']);
    expect(followed.followedBy).toBe('stream');
    expect(fake.requests.at(-1)?.url).toBe(`${BASE}/v1/atomic-swaps/${ID}/events`);
  });

  it('reads the swap when its stream is refused, and cancels one before signing', async () => {
    const executing = { ...GOOD, status: 'executing' } as const;
    const fake = fakeFetch((request) => {
      if (request.url.endsWith('/events')) return problem('not_found', 404);
      return reads.shift() ?? json(COMPLETED);
    });
    const reads = [json(GOOD), json(executing)];
    const swap = await client(fake.fetch).atomicSwaps.get(ID);
    expect((await swap.wait()).status).toBe('completed');
    expect(swap.followedBy).toBe('poll');
    const cancelled = { ...GOOD, status: 'cancelled' } as const;
    const again = fakeFetch(json(GOOD), json(cancelled));
    const prepared = await client(again.fetch).atomicSwaps.get(ID);
    expect((await prepared.cancel()).status).toBe('cancelled');
    expect(again.requests[1]?.url).toBe(`${BASE}/v1/atomic-swaps/${ID}/cancel`);
    expect(() => prepared.on('deposited' as never, () => {})).toThrow(ValidationError);
  });

  it('raises the service’s refusal of a signature as its error', async () => {
    const fake = fakeFetch(json(GOOD, 201), problem('invalid_transaction_signature', 401));
    const swap = await client(fake.fetch).atomicSwaps.create(PARAMS);
    await expect(swap.execute(signer())).rejects.toMatchObject({
      code: 'invalid_transaction_signature',
    });
  });
});
