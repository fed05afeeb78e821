/**
 * The cap on a developer's working API keys (docs/spec/auth.md#developer-keys): active keys and
 * rotated keys still in their grace period count alike, so chained rotations cannot multiply the
 * keys that authenticate. Run on PGlite and on PostgreSQL; on PostgreSQL also from two pools at
 * once, as two processes would. A key that stops early is announced to every listener.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  API_KEY_CHANGES_CHANNEL,
  type ApiKeyRecord,
  type Database,
  graceKeysOverCap,
  insertApiKeyWithinCap,
  isApiKeyUsable,
  listApiKeys,
  listWorkingApiKeys,
  type NewApiKey,
  revokeApiKey,
  rotateApiKeyWithinCap,
  upsertDeveloper,
} from '../src/index.js';
import { storeBackends } from '../testing/index.js';

const BACKENDS = await storeBackends('API key cap suite', {
  schemaPrefix: 'pp_key_cap',
  processes: 2,
});

const T0 = new Date('2026-03-01T12:00:00.000Z');
const HOUR_MS = 60 * 60 * 1000;
const at = (ms: number) => new Date(T0.getTime() + ms);
const uid = () => randomBytes(6).toString('hex');
/** A small cap keeps the tests short; the rule is the same at the service's 25. */
const CAP = 3;
/** Far longer than a notification takes on one machine. */
const ANNOUNCEMENT_WAIT_MS = 5_000;

function newKey(developerParty: string, createdAt: Date): NewApiKey {
  return {
    keyId: `key_${uid()}`,
    developerParty,
    name: '',
    keyHash: randomBytes(32).toString('hex'),
    prefix: 'pp_test_abcd',
    environment: 'devnet',
    createdAt,
  };
}

function rotation(old: ApiKeyRecord, now: Date) {
  return { oldKeyId: old.keyId, newKey: newKey(old.developerParty, now), now };
}

function keyRecord(keyId: string, revokesAt: Date | null): ApiKeyRecord {
  return {
    keyId,
    developerParty: 'dev::1220aa',
    name: '',
    prefix: 'pp_test_abcd',
    environment: 'devnet',
    createdAt: T0,
    lastUsedAt: null,
    revokedAt: null,
    revokesAt,
    replacedBy: revokesAt === null ? null : 'key_next',
    requestCount: 0,
    readsPerMin: null,
    swapsPerMin: null,
  };
}

describe('which grace periods a rotation at the cap ends', () => {
  const active = keyRecord('key_active', null);
  const soon = keyRecord('key_soon', at(HOUR_MS));
  const later = keyRecord('key_later', at(2 * HOUR_MS));

  it('none while the working keys are within the cap', () => {
    expect(graceKeysOverCap([active, soon, later], 3)).toEqual([]);
  });

  it('those that would end soonest, as many as the cap is passed by', () => {
    expect(graceKeysOverCap([later, active, soon], 2)).toEqual(['key_soon']);
    expect(graceKeysOverCap([later, active, soon], 1)).toEqual(['key_soon', 'key_later']);
  });

  it('never an active key, even when active keys alone pass the cap', () => {
    expect(graceKeysOverCap([active, keyRecord('key_other', null), soon], 1)).toEqual(['key_soon']);
  });
});

interface Listening {
  readonly heard: Set<string>;
  /** Waits until every key id was heard, or the wait ran out; then stops listening. */
  finish(): Promise<Set<string>>;
}

async function listenFor(db: Database, keyIds: readonly string[]): Promise<Listening> {
  const heard = new Set<string>();
  let allHeard = () => {};
  const done = new Promise<void>((resolve) => {
    allHeard = resolve;
  });
  const stop = await db.listen(API_KEY_CHANGES_CHANNEL, (payload) => {
    heard.add(payload);
    if (keyIds.every((keyId) => heard.has(keyId))) allHeard();
  });
  return {
    heard,
    finish: async () => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ANNOUNCEMENT_WAIT_MS);
      });
      await Promise.race([done, timeout]).finally(() => clearTimeout(timer));
      await stop();
      return heard;
    },
  };
}

describe.each(BACKENDS)('working keys on $name', (backend) => {
  let db: Database;
  let other: Database;

  beforeAll(async () => {
    if (backend.skipReason !== null) return;
    [db, other] = await backend.open();
  });
  afterAll(() => backend.close());

  async function developerWithKeys(count: number): Promise<ApiKeyRecord[]> {
    const party = `dev-${uid()}::1220${uid()}`;
    await upsertDeveloper(db, party, T0);
    const keys: ApiKeyRecord[] = [];
    for (let i = 0; i < count; i++) {
      const key = await insertApiKeyWithinCap(db, newKey(party, T0), CAP);
      if (key === null) throw new Error('refused below the cap');
      keys.push(key);
    }
    return keys;
  }

  /**
   * A developer at the cap with one key in its grace: of `CAP - 1` keys, `first` was rotated an
   * hour in, so `first` (in its grace), its `successor` and `second` all count.
   */
  async function atTheCapWithOneInItsGrace() {
    const [first, second] = await developerWithKeys(CAP - 1);
    if (!first || !second) throw new Error('no keys');
    const successor = await rotateApiKeyWithinCap(db, rotation(first, at(HOUR_MS)), CAP);
    if (successor === null) throw new Error('rotation refused');
    return { first, second, party: first.developerParty, successor };
  }

  const workingIds = async (party: string, now: Date) =>
    (await listWorkingApiKeys(db, party, now)).map((key) => key.keyId).sort();

  it.skipIf(backend.skipReason !== null)(
    'count rotated keys in their grace period: creating beyond the cap is refused',
    async () => {
      const [first, second] = await developerWithKeys(CAP - 1);
      if (!first || !second) throw new Error('no keys');
      const now = at(HOUR_MS);
      const successor = await rotateApiKeyWithinCap(db, rotation(first, now), CAP);
      expect(successor).not.toBeNull();
      // first (in its grace), its successor and second: the cap is reached.
      expect(await workingIds(first.developerParty, now)).toHaveLength(CAP);
      expect(await insertApiKeyWithinCap(db, newKey(first.developerParty, now), CAP)).toBeNull();
    },
  );

  it.skipIf(backend.skipReason !== null)(
    'end, at the cap, the grace that would stop soonest, and announce it',
    async () => {
      const { first, second, party, successor } = await atTheCapWithOneInItsGrace();
      const listening = await listenFor(db, [first.keyId]);
      const now = at(2 * HOUR_MS);
      // Rotating second passes the cap: first's grace ends, second keeps its own.
      const next = await rotateApiKeyWithinCap(db, rotation(second, now), CAP);
      if (next === null) throw new Error('rotation refused');
      expect(await workingIds(party, now)).toEqual(
        [second.keyId, successor.keyId, next.keyId].sort(),
      );
      const [ended] = (await listApiKeys(db, party)).filter((key) => !isApiKeyUsable(key, now));
      expect(ended).toMatchObject({ keyId: first.keyId, revokesAt: now });
      expect([...(await listening.finish())]).toEqual([first.keyId]);
    },
  );

  it.skipIf(backend.skipReason !== null)(
    "end, at the cap with no other key in its grace, the rotated key's own grace",
    async () => {
      const [first] = await developerWithKeys(CAP);
      if (!first) throw new Error('no keys');
      const listening = await listenFor(db, [first.keyId]);
      const now = at(HOUR_MS);
      const successor = await rotateApiKeyWithinCap(db, rotation(first, now), CAP);
      if (successor === null) throw new Error('rotation refused');
      const working = await workingIds(first.developerParty, now);
      expect(working).toHaveLength(CAP);
      expect(working).toContain(successor.keyId);
      expect(working).not.toContain(first.keyId);
      expect([...(await listening.finish())]).toEqual([first.keyId]);
    },
  );

  it.skipIf(backend.skipReason !== null)('announce a revocation', async () => {
    const [key] = await developerWithKeys(1);
    if (!key) throw new Error('no key');
    const listening = await listenFor(db, [key.keyId]);
    const input = { keyId: key.keyId, developerParty: key.developerParty, now: at(HOUR_MS) };
    expect(await revokeApiKey(db, input)).not.toBeNull();
    // Revoking a revoked key changes nothing and announces nothing.
    expect(await revokeApiKey(db, input)).toBeNull();
    expect([...(await listening.finish())]).toEqual([key.keyId]);
  });

  it.skipIf(backend.skipReason !== null)(
    'never pass the cap under concurrent rotations and creations from two processes',
    async () => {
      const { second, party, successor } = await atTheCapWithOneInItsGrace();
      const now = at(2 * HOUR_MS);
      // Both rotations would end first's grace if they counted side by side.
      const [rotatedA, rotatedB, createdA, createdB] = await Promise.all([
        rotateApiKeyWithinCap(db, rotation(successor, now), CAP),
        rotateApiKeyWithinCap(other, rotation(second, now), CAP),
        insertApiKeyWithinCap(db, newKey(party, now), CAP),
        insertApiKeyWithinCap(other, newKey(party, now), CAP),
      ]);
      expect(rotatedA).not.toBeNull();
      expect(rotatedB).not.toBeNull();
      expect([createdA, createdB]).toEqual([null, null]);
      expect((await workingIds(party, now)).length).toBeLessThanOrEqual(CAP);
    },
  );
});
