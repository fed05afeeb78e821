/**
 * The webhook tables (migration 0017) on PGlite and PostgreSQL: the cap on a developer's
 * endpoints, events queued by the triggers only for developers with an enabled endpoint (an
 * atomic swap's state changes too, migration 0024), claims
 * that keep one subject's deliveries in order and one at a time (also with attempts recorded in
 * batches, and with a delivery added while the one before it ends), a lease that runs out and is
 * taken over, deliveries leased where they are added or released (within the slots offered),
 * and the delivery log's retention.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  claimWebhookDeliveries,
  type Database,
  dequeueWebhookEvents,
  insertApiKeyWithinCap,
  insertAtomicSwap,
  insertFannedOutWebhookEvents,
  insertPool,
  insertWebhookDeliveries,
  insertWebhookEndpointWithinCap,
  listAtomicSwapEvents,
  listWebhookDeliveries,
  lockQueuedWebhookEvents,
  purgeWebhookDeliveries,
  recordWebhookAttempt,
  recordWebhookAttempts,
  recordWebhookAttemptsLeasing,
  revokeApiKey,
  rotateWebhookSecret,
  signingSecrets,
  transitionAtomicSwap,
  updateWebhookEndpoint,
  upsertDeveloper,
  WEBHOOK_DELIVERY_RETENTION_MS,
  type WebhookEndpointRecord,
} from '../src/index.js';
import { storeBackends, testAtomicSwap, testIntentPool } from '../testing/index.js';

const BACKENDS = await storeBackends('webhook store suite', { schemaPrefix: 'pp_webhooks' });
const T0 = new Date('2026-03-01T12:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const uid = () => randomBytes(8).toString('hex');
const LEASE_MS = 30_000;
/** The cap on a developer's working API keys the key inserts are given. */
const API_KEY_CAP = 25;
/** How often, and how many times, the race test looks for the fan-out waiting on the lock. */
const LOCK_WAIT_LOOK_MS = 25;
const LOCK_WAIT_LOOKS = 400;

/** A promise and what settles it: a race test holds one side at a point until it is given. */
function signal(): { readonly reached: Promise<void>; readonly give: () => void } {
  let give = () => {};
  const reached = new Promise<void>((resolve) => {
    give = resolve;
  });
  return { reached, give };
}

/**
 * Looks, until `over()`, for a session waiting on an advisory lock (in a statement containing
 * `statement`, when given); whether one was seen.
 */
async function sawAdvisoryWait(db: Database, over: () => boolean, statement?: string) {
  const of = statement === undefined ? '' : ' AND position($1 in query) > 0';
  for (let n = 0; n < LOCK_WAIT_LOOKS && !over(); n += 1) {
    const [waiting] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE wait_event_type = 'Lock' AND wait_event = 'advisory'${of}`,
      statement === undefined ? [] : [statement],
    );
    if ((waiting?.n ?? 0) > 0) return true;
    await new Promise((resolve) => setTimeout(resolve, LOCK_WAIT_LOOK_MS));
  }
  return false;
}

/** The value, which the test's set-up made: failing here names what was missing. */
function must<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`no ${what}`);
  return value;
}

describe.each(BACKENDS)('webhook store on $name', (backend) => {
  let db: Database;
  beforeAll(async () => {
    if (backend.skipReason === null) [db] = await backend.open();
  });
  afterAll(() => backend.close());

  async function developerWithEndpoint(): Promise<{
    party: string;
    endpoint: WebhookEndpointRecord;
  }> {
    const party = `dev-${uid()}::1220${uid()}`;
    await upsertDeveloper(db, party, T0);
    const endpoint = await insertWebhookEndpointWithinCap(
      db,
      {
        endpointId: `we_${uid()}`,
        developerParty: party,
        url: 'http://127.0.0.1:9/hook',
        events: [],
        apiKeyIds: null,
        description: '',
        secret: 'whsec_one',
        createdAt: T0,
      },
      2,
    );
    if (endpoint === null) throw new Error('refused below the cap');
    return { party, endpoint };
  }

  /** A new API key of the developer's, well below the cap on working keys. */
  async function apiKeyOf(party: string) {
    const key = await insertApiKeyWithinCap(
      db,
      {
        keyId: `key_${uid()}`,
        developerParty: party,
        name: '',
        keyHash: randomBytes(32).toString('hex'),
        prefix: 'pp_test_abcd',
        environment: 'devnet',
        createdAt: T0,
      },
      API_KEY_CAP,
    );
    return must(key, 'key');
  }

  function delivery(endpointId: string, subjectId: string, eventId = `evt_${uid()}`) {
    return {
      deliveryId: `wd_${uid()}`,
      endpointId,
      eventId,
      eventType: 'swap.pending',
      subjectId,
      body: '{}',
      createdAt: T0,
    };
  }

  const claim = (owner: string, now: Date) =>
    claimWebhookDeliveries(db, {
      owner,
      now,
      leaseUntil: new Date(now.getTime() + LEASE_MS),
      limit: 10,
      perEndpoint: 10,
      busy: {},
      scanMax: 100,
    });

  it.skipIf(backend.skipReason !== null)('refuses an endpoint beyond the cap', async () => {
    const { party } = await developerWithEndpoint();
    const more = (n: number) =>
      insertWebhookEndpointWithinCap(
        db,
        {
          endpointId: `we_${uid()}`,
          developerParty: party,
          url: 'https://example.com/',
          events: [],
          apiKeyIds: null,
          description: `${n}`,
          secret: 's',
          createdAt: T0,
        },
        2,
      );
    expect(await more(2)).not.toBeNull();
    expect(await more(3)).toBeNull();
  });

  it.skipIf(backend.skipReason !== null)(
    'queues a revoked key only while the developer has an enabled endpoint',
    async () => {
      const { party, endpoint } = await developerWithEndpoint();
      const key = await apiKeyOf(party);
      await revokeApiKey(db, { keyId: key.keyId, developerParty: party, now: at(1) });
      await updateWebhookEndpoint(db, {
        endpointId: endpoint.endpointId,
        developerParty: party,
        changes: { enabled: false },
        now: at(2),
      });
      const other = await apiKeyOf(party);
      await revokeApiKey(db, { keyId: other.keyId, developerParty: party, now: at(3) });
      const queued = await db.transaction(async (tx) => {
        const events = (await lockQueuedWebhookEvents(tx, 1000)).filter(
          (e) => e.developerParty === party,
        );
        await dequeueWebhookEvents(
          tx,
          events.map((e) => e.queuedSeq),
        );
        return events;
      });
      expect(queued.map((e) => [e.eventId, e.type, e.subjectId])).toEqual([
        [`evt_api_key_${key.keyId}_revoked`, 'api_key.revoked', key.keyId],
      ]);
    },
  );

  it.skipIf(backend.skipReason !== null)(
    "queues each state change of an atomic swap, in its outbox's order, with the swap's key",
    async () => {
      const { party } = await developerWithEndpoint();
      const key = await apiKeyOf(party);
      const pool = await insertPool(db, { ...testIntentPool(T0), poolId: `pool-${uid()}` });
      const swapOf = (developerParty: string, apiKeyId: string) =>
        testAtomicSwap({
          atomicSwapId: `atm_${uid()}`,
          createdAt: T0,
          poolId: pool.poolId,
          developerParty,
          apiKeyId,
        });
      const swap = await insertAtomicSwap(db, swapOf(party, key.keyId));
      // One statement passing `executing` on the way to `price_moved`: two rows, two events.
      await transitionAtomicSwap(db, {
        atomicSwapId: swap.atomicSwapId,
        from: ['prepared'],
        via: 'executing',
        to: 'price_moved',
        at: at(1),
        signature: { signature: 'c2ln', publicKey: 'a2V5' },
        failure: { code: 'price_moved', message: 'the curve pays less' },
      });
      // A developer without an endpoint is queued nothing.
      const quiet = `dev-${uid()}::1220${uid()}`;
      await upsertDeveloper(db, quiet, T0);
      await insertAtomicSwap(db, swapOf(quiet, (await apiKeyOf(quiet)).keyId));
      const queued = await db.transaction(async (tx) => {
        const events = (await lockQueuedWebhookEvents(tx, 1000)).filter(
          (e) => e.developerParty === party || e.developerParty === quiet,
        );
        await dequeueWebhookEvents(
          tx,
          events.map((e) => e.queuedSeq),
        );
        return events;
      });
      const outbox = await listAtomicSwapEvents(db, swap.atomicSwapId);
      expect(outbox.map((e) => e.status)).toEqual(['prepared', 'executing', 'price_moved']);
      expect(queued.map((e) => [e.eventId, e.type, e.subjectId, e.apiKeyId, e.outboxSeq])).toEqual(
        outbox.map((e) => [
          `evt_atomic_swap_${e.seq}`,
          `atomic_swap.${e.status}`,
          swap.atomicSwapId,
          key.keyId,
          e.seq,
        ]),
      );
      expect(queued.map((e) => e.at)).toEqual(outbox.map((e) => e.at));
    },
  );

  it.skipIf(backend.skipReason !== null)(
    'claims one delivery of a subject at a time, in order, and hands over a lapsed lease',
    async () => {
      const { endpoint } = await developerWithEndpoint();
      const id = endpoint.endpointId;
      const [first, second] = await insertWebhookDeliveries(db, [
        delivery(id, 'int_a'),
        delivery(id, 'int_a'),
      ]);
      const [other] = await insertWebhookDeliveries(db, [delivery(id, 'int_b')]);
      const claimed = await claim('worker-1', at(0));
      expect(claimed.map((d) => d.deliveryId).sort()).toEqual(
        [first?.deliveryId, other?.deliveryId].sort(),
      );
      expect(await claim('worker-2', at(1000))).toEqual([]);
      // worker-1 dies; its lease runs out and worker-2 takes both over.
      const taken = await claim('worker-2', at(LEASE_MS));
      expect(taken.map((d) => d.deliveryId).sort()).toEqual(
        [first?.deliveryId, other?.deliveryId].sort(),
      );
      const attempt = {
        at: at(LEASE_MS).toISOString(),
        statusCode: 200,
        latencyMs: 5,
        error: null,
        responseExcerpt: 'ok',
      };
      const done = { attempt, state: 'delivered' as const, nextAttemptAt: null, now: at(LEASE_MS) };
      expect(
        await recordWebhookAttempt(db, {
          ...done,
          deliveryId: must(first, 'delivery').deliveryId,
          owner: 'worker-1',
        }),
      ).toBe(false);
      expect(
        await recordWebhookAttempt(db, {
          ...done,
          deliveryId: must(first, 'delivery').deliveryId,
          owner: 'worker-2',
        }),
      ).toBe(true);
      expect((await claim('worker-2', at(LEASE_MS + 1))).map((d) => d.deliveryId)).toEqual([
        second?.deliveryId,
      ]);
    },
  );

  const delivered = (deliveryId: string, owner: string, now: Date) => ({
    deliveryId,
    owner,
    attempt: {
      at: now.toISOString(),
      statusCode: 204,
      latencyMs: 1,
      error: null,
      responseExcerpt: null,
    },
    state: 'delivered' as const,
    nextAttemptAt: null,
    now,
  });

  it.skipIf(backend.skipReason !== null)(
    'delivers many endpoints × subjects in order with attempts recorded in batches',
    async () => {
      const endpoints = [
        (await developerWithEndpoint()).endpoint.endpointId,
        (await developerWithEndpoint()).endpoint.endpointId,
        (await developerWithEndpoint()).endpoint.endpointId,
      ];
      const subjects = ['int_p', 'int_q', 'int_r', 'int_s'];
      const EVENTS = 5;
      const made = new Map<string, string[]>();
      // Added in several statements, chains interleaved, as fan-outs of successive events are.
      for (let n = 0; n < EVENTS; n += 1) {
        const batch = endpoints.flatMap((e) =>
          subjects.map((s) => delivery(e, s, `evt_${n}_${uid()}`)),
        );
        for (const added of await insertWebhookDeliveries(db, batch)) {
          const chain = `${added.endpointId} ${added.subjectId}`;
          made.set(chain, [...(made.get(chain) ?? []), added.deliveryId]);
        }
      }
      const sent = new Map<string, string[]>();
      const bigClaim = (now: Date) =>
        claimWebhookDeliveries(db, {
          owner: 'batcher',
          now,
          leaseUntil: new Date(now.getTime() + LEASE_MS),
          limit: 100,
          perEndpoint: 100,
          busy: {},
          scanMax: 1_000,
        });
      for (let round = 0; round < EVENTS; round += 1) {
        const claimed = (await bigClaim(at(round))).filter((d) => endpoints.includes(d.endpointId));
        // One a chain at a time: the first open one of each.
        expect(claimed).toHaveLength(endpoints.length * subjects.length);
        for (const d of claimed) {
          const chain = `${d.endpointId} ${d.subjectId}`;
          sent.set(chain, [...(sent.get(chain) ?? []), d.deliveryId]);
        }
        const recorded = await db.transaction((tx) =>
          recordWebhookAttempts(
            tx,
            claimed.map((d) => delivered(d.deliveryId, 'batcher', at(round))),
          ),
        );
        expect(recorded).toHaveLength(claimed.length);
      }
      expect(sent).toEqual(made);
      expect((await bigClaim(at(EVENTS))).filter((d) => endpoints.includes(d.endpointId))).toEqual(
        [],
      );
    },
  );

  it.skipIf(backend.skipReason !== null)(
    'lets a delivery given up release the next of its subject',
    async () => {
      const { endpoint } = await developerWithEndpoint();
      const id = endpoint.endpointId;
      const [first, second] = await insertWebhookDeliveries(db, [
        delivery(id, 'int_g'),
        delivery(id, 'int_g'),
      ]);
      expect((await claim('w', at(0))).map((d) => d.deliveryId)).toEqual([first?.deliveryId]);
      await db.transaction((tx) =>
        recordWebhookAttempts(tx, [
          { ...delivered(must(first, 'delivery').deliveryId, 'w', at(1)), state: 'failed' },
        ]),
      );
      expect((await claim('w', at(2))).map((d) => d.deliveryId)).toEqual([second?.deliveryId]);
    },
  );

  /** One event of `subjectId` to each endpoint, as a fan-out passes it. */
  const fannedOut = (subjectId: string, endpointIds: readonly string[]) => ({
    eventId: `evt_${uid()}`,
    type: 'swap.completed',
    subjectId,
    body: `{"subject":"${subjectId}"}`,
    recipients: endpointIds.map((endpointId) => ({ endpointId, deliveryId: `wd_${uid()}` })),
  });
  const offer = (owner: string, now: Date, total: number, perEndpoint: Record<string, number>) => ({
    owner,
    now,
    leaseUntil: new Date(now.getTime() + LEASE_MS),
    total,
    perEndpoint,
  });

  it.skipIf(backend.skipReason !== null)(
    'leases what a fan-out adds within the offer, leaving the held and the rest to claims',
    async () => {
      const [a, b] = [
        (await developerWithEndpoint()).endpoint.endpointId,
        (await developerWithEndpoint()).endpoint.endpointId,
      ];
      // Three subjects to both endpoints, the first twice (its second event held behind it).
      const events = [
        fannedOut('int_l1', [a, b]),
        fannedOut('int_l2', [a, b]),
        fannedOut('int_l3', [a, b]),
        fannedOut('int_l1', [a, b]),
      ];
      const written = await db.transaction((tx) =>
        insertFannedOutWebhookEvents(tx, {
          events,
          dequeue: [],
          now: at(0),
          // Two of a, one of b, and three in all: a's first two and b's first.
          lease: offer('w', at(0), 3, { [a]: 2, [b]: 5 }),
        }),
      );
      const id = (event: number, endpoint: number) =>
        must(events[event]?.recipients[endpoint], 'recipient').deliveryId;
      expect(written.added).toBe(8);
      expect(written.leased.map((d) => d.deliveryId)).toEqual([id(0, 0), id(0, 1), id(1, 0)]);
      // Not held and not leased: b's of int_l2, and both of int_l3.
      expect(written.claimable).toBe(3);
      const claimed = await claim('other', at(1));
      expect(claimed.map((d) => d.deliveryId).sort()).toEqual(
        [id(1, 1), id(2, 0), id(2, 1)].sort(),
      );
    },
  );

  it.skipIf(backend.skipReason !== null)(
    'leases the next of a chain when its delivery ends, within the offer, or leaves it to a claim',
    async () => {
      const { endpoint } = await developerWithEndpoint();
      const id = endpoint.endpointId;
      const [one, two, three] = await insertWebhookDeliveries(db, [
        delivery(id, 'int_n'),
        delivery(id, 'int_n'),
        delivery(id, 'int_n'),
      ]);
      await claim('w', at(0));
      const first = await recordWebhookAttemptsLeasing(
        db,
        [delivered(must(one, 'delivery').deliveryId, 'w', at(1))],
        offer('w', at(1), 4, { [id]: 1 }),
      );
      expect(first.recorded.map((r) => r.deliveryId)).toEqual([one?.deliveryId]);
      expect(first.leased.map((d) => [d.deliveryId, d.body, d.endpoint.url])).toEqual([
        [two?.deliveryId, '{}', endpoint.url],
      ]);
      expect(first.claimable).toBe(0);
      // Leased to w: no claim takes it.
      expect(await claim('other', at(2))).toEqual([]);
      // No slot free for the endpoint: the third is released for a claim.
      const second = await recordWebhookAttemptsLeasing(
        db,
        [delivered(must(two, 'delivery').deliveryId, 'w', at(3))],
        offer('w', at(3), 4, {}),
      );
      expect({ leased: second.leased, claimable: second.claimable }).toEqual({
        leased: [],
        claimable: 1,
      });
      expect((await claim('other', at(4))).map((d) => d.deliveryId)).toEqual([three?.deliveryId]);
    },
  );

  it.skipIf(backend.skipReason !== null || backend.name !== 'PostgreSQL')(
    "fans out one batch at a time, so a later event never overtakes an earlier one's batch",
    async () => {
      const { party } = await developerWithEndpoint();
      const [first, second] = [await apiKeyOf(party), await apiKeyOf(party)];
      const revoke = (keyId: string, ms: number) =>
        revokeApiKey(db, { keyId, developerParty: party, now: at(ms) });
      const ours = (events: readonly { developerParty: string; eventId: string }[]) =>
        events.filter((e) => e.developerParty === party).map((e) => e.eventId);
      await revoke(must(first, 'key').keyId, 1);
      const gate = signal();
      const firstTaken = signal();
      // A fan-out takes the first event and, before it commits, the second is queued.
      const fanOutOne = db.transaction(async (tx) => {
        const events = await lockQueuedWebhookEvents(tx, 1000);
        firstTaken.give();
        await gate.reached;
        await dequeueWebhookEvents(
          tx,
          events.map((e) => e.queuedSeq),
        );
        return ours(events);
      });
      await firstTaken.reached;
      await revoke(must(second, 'key').keyId, 2);
      let secondDone = false;
      const fanOutTwo = db
        .transaction(async (tx) => {
          const events = await lockQueuedWebhookEvents(tx, 1000);
          await dequeueWebhookEvents(
            tx,
            events.map((e) => e.queuedSeq),
          );
          return ours(events);
        })
        .finally(() => {
          secondDone = true;
        });
      const waited = await sawAdvisoryWait(
        db,
        () => secondDone,
        'pg_advisory_xact_lock(1347442502,',
      );
      // The second fan-out waits for the first rather than take the newer event past it.
      expect({ waited, secondDone }).toEqual({ waited: true, secondDone: false });
      gate.give();
      expect(await fanOutOne).toEqual([`evt_api_key_${must(first, 'key').keyId}_revoked`]);
      expect(await fanOutTwo).toEqual([`evt_api_key_${must(second, 'key').keyId}_revoked`]);
    },
  );

  it.skipIf(backend.skipReason !== null || backend.name !== 'PostgreSQL')(
    'releases a delivery added while the one before it is being recorded as delivered',
    async () => {
      const { endpoint } = await developerWithEndpoint();
      const id = endpoint.endpointId;
      const [head] = await insertWebhookDeliveries(db, [delivery(id, 'int_race')]);
      expect((await claim('w', at(0))).map((d) => d.deliveryId)).toEqual([head?.deliveryId]);
      const gate = signal();
      // The worker records the head and, before it commits, a fan-out adds the next event.
      const headRecorded = signal();
      const recording = db.transaction(async (tx) => {
        await recordWebhookAttempts(tx, [delivered(must(head, 'delivery').deliveryId, 'w', at(1))]);
        headRecorded.give();
        await gate.reached;
      });
      await headRecorded.reached;
      const next = `wd_${uid()}`;
      let fannedOut = false;
      const fanOut = db
        .transaction((tx) =>
          insertFannedOutWebhookEvents(tx, {
            events: [
              {
                eventId: `evt_${uid()}`,
                type: 'swap.completed',
                subjectId: 'int_race',
                body: '{}',
                recipients: [{ endpointId: id, deliveryId: next }],
              },
            ],
            dequeue: [],
            now: at(1),
          }),
        )
        .then(() => {
          fannedOut = true;
        });
      // The fan-out reaches the chain's lock, or (without one) commits, before the worker does.
      await sawAdvisoryWait(db, () => fannedOut);
      gate.give();
      await Promise.all([recording, fanOut]);
      expect((await claim('w', at(2))).map((d) => d.deliveryId)).toEqual([next]);
    },
  );

  it.skipIf(backend.skipReason !== null || backend.name !== 'PostgreSQL')(
    'adds a resend behind a delivery of its chain that an open fan-out adds',
    async () => {
      const { endpoint } = await developerWithEndpoint();
      const id = endpoint.endpointId;
      const gate = signal();
      const locked = signal();
      const fannedOut = `wd_${uid()}`;
      // A fan-out holds its turn and adds the chain's first delivery, not yet committed.
      const fanOut = db.transaction(async (tx) => {
        await lockQueuedWebhookEvents(tx, 1);
        await insertFannedOutWebhookEvents(tx, {
          events: [
            {
              eventId: `evt_${uid()}`,
              type: 'swap.completed',
              subjectId: 'int_resend',
              body: '{}',
              recipients: [{ endpointId: id, deliveryId: fannedOut }],
            },
          ],
          dequeue: [],
          now: at(0),
        });
        locked.give();
        await gate.reached;
      });
      await locked.reached;
      let resent = false;
      const resend = insertWebhookDeliveries(db, [delivery(id, 'int_resend')]).finally(() => {
        resent = true;
      });
      const waited = await sawAdvisoryWait(db, () => resent, 'pg_advisory_xact_lock(1347442502,');
      expect({ waited, resent }).toEqual({ waited: true, resent: false });
      gate.give();
      await Promise.all([fanOut, resend]);
      // One of the chain is sendable at a time: the fan-out's, then the resend behind it.
      expect((await claim('w', at(1))).map((d) => d.deliveryId)).toEqual([fannedOut]);
    },
  );

  it.skipIf(backend.skipReason !== null)(
    'signs with the previous secret during the overlap only',
    async () => {
      const { party, endpoint } = await developerWithEndpoint();
      const rotated = must(
        await rotateWebhookSecret(db, {
          endpointId: endpoint.endpointId,
          developerParty: party,
          secret: 'whsec_two',
          previousExpiresAt: at(1000),
          now: T0,
        }),
        'rotation',
      );
      expect(signingSecrets(rotated, at(999))).toEqual(['whsec_two', 'whsec_one']);
      expect(signingSecrets(rotated, at(1000))).toEqual(['whsec_two']);
      expect(
        await rotateWebhookSecret(db, {
          endpointId: endpoint.endpointId,
          developerParty: 'someone-else',
          secret: 'x',
          previousExpiresAt: at(1),
          now: T0,
        }),
      ).toBeNull();
    },
  );

  it.skipIf(backend.skipReason !== null)(
    'keeps an ended delivery for the retention, then purges it',
    async () => {
      const { endpoint } = await developerWithEndpoint();
      const [made] = await insertWebhookDeliveries(db, [delivery(endpoint.endpointId, 'int_c')]);
      await claim('worker-1', at(0));
      const attempt = {
        at: T0.toISOString(),
        statusCode: 500,
        latencyMs: 5,
        error: null,
        responseExcerpt: null,
      };
      await recordWebhookAttempt(db, {
        deliveryId: must(made, 'delivery').deliveryId,
        owner: 'worker-1',
        attempt,
        state: 'failed',
        nextAttemptAt: null,
        now: T0,
      });
      const listed = async () =>
        (
          await listWebhookDeliveries(db, {
            endpointId: endpoint.endpointId,
            limit: 10,
            before: null,
          })
        )?.map((d) => d.deliveryId);
      await purgeWebhookDeliveries(db, at(WEBHOOK_DELIVERY_RETENTION_MS - 1), 100);
      expect(await listed()).toEqual([made?.deliveryId]);
      await purgeWebhookDeliveries(db, at(WEBHOOK_DELIVERY_RETENTION_MS), 100);
      expect(await listed()).toEqual([]);
    },
  );
});
