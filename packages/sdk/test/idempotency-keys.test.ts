/**
 * `Idempotency-Key` on every write the SDK retries (docs/spec/sdk.md#retries): one key per call,
 * the caller's `idempotencyKey` or a generated one, the same on each retry of the call and new
 * for the next call; reads carry none.
 */
import { describe, expect, it } from 'vitest';
import { DeveloperPortal, ValidationError, type WriteOptions } from '../src/index.js';
import { withLiquidity } from '../src/liquidity/index.js';
import { fakeFetch, json, problem, type Reply, recordingSleep } from './support/fake-fetch.js';
import { intentFixture } from './support/statuses.js';
import { BASE, testClient } from './support/test-client.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const LIQUIDITY_INTENT = { liquidityIntentId: 'liq_1', status: 'pending', poolId: 'amulet-usdcx' };
const WITHDRAWAL = { withdrawalId: 'wdr_1', status: 'paying', poolId: 'amulet-usdcx' };

function client(replies: Reply[]) {
  const fake = fakeFetch(...replies);
  return { pp: withLiquidity(testClient(fake.fetch)), requests: fake.requests };
}

function portal(replies: Reply[]) {
  const fake = fakeFetch(...replies);
  const dev = new DeveloperPortal({
    baseUrl: BASE,
    session: 'session-token',
    fetch: fake.fetch,
    sleep: recordingSleep().sleep,
  });
  return { dev, requests: fake.requests };
}

/** A lost answer, then the service still busy with the first attempt, then the answer. */
const lostThenAnswered = (answer: Response): Reply[] => [
  new TypeError('connection reset'),
  problem('idempotency_key_in_use', 409),
  answer,
];

type Write = (options?: WriteOptions) => Promise<unknown>;

const writes: [string, Response, (pp: ReturnType<typeof client>['pp']) => Write][] = [
  [
    'swaps.create',
    json(intentFixture(), 201),
    (pp) => (options) =>
      pp.swaps.create({ fromToken: 'Amulet', toToken: 'USDCx', amount: '100' }, options),
  ],
  [
    'swaps.cancel',
    json({ intentId: 'int_1', status: 'cancelled' }),
    (pp) => (options) => pp.swaps.cancel('int_1', options),
  ],
  [
    'liquidity.create',
    json(LIQUIDITY_INTENT, 201),
    (pp) => (options) => pp.liquidity.create({ poolId: 'amulet-usdcx', amountA: '10' }, options),
  ],
  [
    'liquidity.withdraw',
    json(WITHDRAWAL, 201),
    (pp) => (options) =>
      pp.liquidity.withdraw(
        { poolId: 'amulet-usdcx', shareBps: 5000, minimumA: '0', minimumB: '0' },
        options,
      ),
  ],
];

describe.each(writes)('%s', (_name, answer, write) => {
  it('sends one generated key on every retry of a call, and a new one for the next call', async () => {
    const { pp, requests } = client([...lostThenAnswered(answer), answer]);
    await write(pp)();
    await write(pp)();
    const keys = requests.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(4);
    expect(keys[0]).toMatch(UUID_V4);
    expect(keys.slice(1, 3)).toEqual([keys[0], keys[0]]);
    expect(keys[3]).toMatch(UUID_V4);
    expect(keys[3]).not.toBe(keys[0]);
  });

  it('sends the caller’s key as given, on each retry, and never in the body', async () => {
    const { pp, requests } = client(lostThenAnswered(answer));
    await write(pp)({ idempotencyKey: 'order-7:attempt' });
    expect(requests.map((r) => r.headers['idempotency-key'])).toEqual([
      'order-7:attempt',
      'order-7:attempt',
      'order-7:attempt',
    ]);
    for (const sent of requests) expect(sent.body ?? {}).not.toHaveProperty('idempotencyKey');
  });

  it('refuses a malformed key before sending anything', async () => {
    const { pp, requests } = client([answer]);
    for (const idempotencyKey of ['has space', 'k'.repeat(256), '']) {
      await expect(write(pp)({ idempotencyKey })).rejects.toThrow(ValidationError);
    }
    expect(requests).toHaveLength(0);
  });
});

describe('the objects a write returns', () => {
  it('cancel a liquidity intent under a key of its own, not the creation’s', async () => {
    const { pp, requests } = client([
      json(LIQUIDITY_INTENT, 201),
      new TypeError('connection reset'),
      json({ ...LIQUIDITY_INTENT, status: 'cancelled' }),
    ]);
    const intent = await pp.liquidity.create(
      { poolId: 'amulet-usdcx', amountA: '10' },
      { idempotencyKey: 'lp-create-1' },
    );
    await intent.cancel();
    const [created, ...cancels] = requests.map((r) => r.headers['idempotency-key']);
    expect(created).toBe('lp-create-1');
    expect(cancels).toHaveLength(2);
    expect(cancels[0]).toMatch(UUID_V4);
    expect(cancels[1]).toBe(cancels[0]);
  });

  it('read without a key', async () => {
    const { pp, requests } = client([json({ items: [] })]);
    await pp.liquidity.positions();
    expect(requests[0]?.headers).not.toHaveProperty('idempotency-key');
  });
});

describe('DeveloperPortal writes', () => {
  const created = json({ keyId: 'key_1', key: 'pp_test_secret', name: 'shop' }, 201);
  const calls: [string, Response, (dev: DeveloperPortal) => Write][] = [
    ['keys.create', created, (dev) => (options) => dev.keys.create({ name: 'shop' }, options)],
    ['keys.rotate', created, (dev) => (options) => dev.keys.rotate('key_0', {}, options)],
    [
      'collections.create',
      json({ collectionId: 'col_1', status: 'pending' }, 201),
      (dev) => (options) =>
        dev.collections.create({ poolId: 'p', token: 'Amulet', tokenAdmin: 'DSO::1' }, options),
    ],
  ];

  it.each(calls)(
    '%s is retried under one key, the caller’s when given',
    async (_n, answer, call) => {
      const generated = portal([new TypeError('connection reset'), answer]);
      await call(generated.dev)();
      const keys = generated.requests.map((r) => r.headers['idempotency-key']);
      expect(keys).toHaveLength(2);
      expect(keys[0]).toMatch(UUID_V4);
      expect(keys[1]).toBe(keys[0]);

      const given = portal([problem('internal_error', 500), answer]);
      await call(given.dev)({ idempotencyKey: 'ci-key-1' });
      expect(given.requests.map((r) => r.headers['idempotency-key'])).toEqual([
        'ci-key-1',
        'ci-key-1',
      ]);
    },
  );
});
