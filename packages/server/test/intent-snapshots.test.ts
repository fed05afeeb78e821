/**
 * The sharing rule behind SSE fan-out, with a fake store: how many reads the subscribers of an
 * intent cost, and that no subscriber ever takes a read begun before it was woken.
 */
import { describe, expect, it } from 'vitest';
import { IntentSnapshots, type WakeUpSource } from '../src/events/intent-snapshots.js';

/** A hub that wakes on demand. */
class FakeHub implements WakeUpSource {
  private readonly wakeUps = new Map<string, Set<() => void>>();

  subscribe(intentId: string, wakeUp: () => void): () => void {
    const set = this.wakeUps.get(intentId) ?? new Set();
    this.wakeUps.set(intentId, set);
    const subscription = () => wakeUp();
    set.add(subscription);
    return () => set.delete(subscription);
  }

  wake(intentId: string): void {
    for (const wakeUp of [...(this.wakeUps.get(intentId) ?? [])]) wakeUp();
  }
}

interface PendingRead {
  readonly intentId: string;
  resolve(version: number): void;
  reject(error: Error): void;
}

/** A store whose reads finish when the test says; each answers the store's version then. */
class FakeStore {
  version = 0;
  readonly pending: PendingRead[] = [];
  reads = 0;

  read = (intentId: string): Promise<string> => {
    this.reads++;
    // The version a read sees is the one when it began, as a query sees committed rows.
    const seen = this.version;
    return new Promise<number>((resolve, reject) => {
      this.pending.push({ intentId, resolve, reject });
    }).then(() => `${intentId}@${seen}`);
  };

  /** Finishes the oldest read in flight. */
  async finish(): Promise<void> {
    const read = this.pending.shift();
    if (read === undefined) throw new Error('no read in flight');
    read.resolve(0);
    await settle();
  }

  async fail(error: Error): Promise<void> {
    const read = this.pending.shift();
    if (read === undefined) throw new Error('no read in flight');
    read.reject(error);
    await settle();
  }
}

/** Lets every pending continuation run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function setUp() {
  const hub = new FakeHub();
  const store = new FakeStore();
  const snapshots = new IntentSnapshots(hub, store.read);
  return { hub, store, snapshots };
}

/** Records what a subscriber's reads answered, or the error. */
function track(promise: Promise<string>): { value?: string; error?: unknown } {
  const outcome: { value?: string; error?: unknown } = {};
  promise.then(
    (value) => {
      outcome.value = value;
    },
    (error: unknown) => {
      outcome.error = error;
    },
  );
  return outcome;
}

describe('intent snapshots', () => {
  it('serves every subscriber woken together from one read', async () => {
    const { hub, store, snapshots } = setUp();
    const subscriptions = Array.from({ length: 1_000 }, () => snapshots.subscribe('i1', () => {}));
    const opened = subscriptions.map((s) => track(s.read()));
    await settle();
    expect(store.reads).toBe(1);
    await store.finish();
    expect(opened.every((o) => o.value === 'i1@0')).toBe(true);

    store.version = 1;
    hub.wake('i1');
    const outcomes = subscriptions.map((s) => track(s.read()));
    await settle();
    expect(store.reads).toBe(2);
    await store.finish();
    expect(outcomes.every((o) => o.value === 'i1@1')).toBe(true);
  });

  it('does not answer a wake-up with a read begun before it, and coalesces wake-ups meanwhile', async () => {
    const { hub, store, snapshots } = setUp();
    const early = snapshots.subscribe('i1', () => {});
    const late = snapshots.subscribe('i1', () => {});
    const first = track(early.read());
    await settle();
    expect(store.reads).toBe(1);

    // Written and announced while the first read is in flight: that read may have missed it.
    store.version = 1;
    hub.wake('i1');
    hub.wake('i1');
    const afterWake = [track(early.read()), track(late.read())];
    await settle();
    expect(store.reads).toBe(1);

    await store.finish();
    expect(first.value).toBe('i1@0');
    // One more read, begun after the wake-ups, for both subscribers.
    expect(store.reads).toBe(2);
    await store.finish();
    expect(afterWake.map((o) => o.value)).toEqual(['i1@1', 'i1@1']);
    expect(store.reads).toBe(2);
  });

  it('gives a subscriber that joins mid-way a read begun after it subscribed', async () => {
    const { store, snapshots } = setUp();
    const first = snapshots.subscribe('i1', () => {});
    const firstRead = track(first.read());
    await settle();
    store.version = 1;
    const joined = snapshots.subscribe('i1', () => {});
    const joinedRead = track(joined.read());
    await store.finish();
    expect(firstRead.value).toBe('i1@0');
    expect(store.reads).toBe(2);
    await store.finish();
    expect(joinedRead.value).toBe('i1@1');
  });

  it('hands a finished read to subscribers that ask late, until the next wake-up', async () => {
    const { hub, store, snapshots } = setUp();
    const a = snapshots.subscribe('i1', () => {});
    const b = snapshots.subscribe('i1', () => {});
    track(a.read());
    await settle();
    await store.finish();
    // b never read before: its first read (subscribed before read 1 began) is read 1.
    expect(track(b.read())).toEqual({});
    await settle();
    expect(store.reads).toBe(1);

    hub.wake('i1');
    track(b.read());
    await settle();
    expect(store.reads).toBe(2);
  });

  it('reads each intent on its own, and only for the intent woken', async () => {
    const { hub, store, snapshots } = setUp();
    const one = snapshots.subscribe('i1', () => {});
    const two = snapshots.subscribe('i2', () => {});
    const reads = [track(one.read()), track(two.read())];
    await settle();
    expect(store.pending.map((r) => r.intentId)).toEqual(['i1', 'i2']);
    await store.finish();
    await store.finish();
    expect(reads.map((r) => r.value)).toEqual(['i1@0', 'i2@0']);

    let woken = 0;
    snapshots.subscribe('i2', () => woken++);
    hub.wake('i1');
    expect(woken).toBe(0);
    track(one.read());
    track(two.read());
    await settle();
    expect(store.pending.map((r) => r.intentId)).toEqual(['i1']);
  });

  it('fails every subscriber waiting on a failed read; the next read starts afresh', async () => {
    const { hub, store, snapshots } = setUp();
    const subscriptions = Array.from({ length: 3 }, () => snapshots.subscribe('i1', () => {}));
    const outcomes = subscriptions.map((s) => track(s.read()));
    await settle();
    const broken = new Error('connection lost');
    await store.fail(broken);
    expect(outcomes.map((o) => o.error)).toEqual([broken, broken, broken]);

    hub.wake('i1');
    const again = track(subscriptions[0]?.read() ?? Promise.reject(new Error('none')));
    await settle();
    expect(store.reads).toBe(2);
    await store.finish();
    expect(again.value).toBe('i1@0');
  });

  it('fails the subscribers of a reader that throws at once', async () => {
    const hub = new FakeHub();
    const snapshots = new IntentSnapshots<string>(hub, () => {
      throw new Error('no connection');
    });
    const outcome = track(snapshots.subscribe('i1', () => {}).read());
    await settle();
    expect(outcome.error).toEqual(new Error('no connection'));
  });

  it('tells each subscriber of a wake-up, stops after close, and forgets an intent nobody follows', () => {
    const { hub, snapshots } = setUp();
    let woken = 0;
    const a = snapshots.subscribe('i1', () => woken++);
    const b = snapshots.subscribe('i1', () => woken++);
    hub.wake('i1');
    expect(woken).toBe(2);
    a.close();
    a.close();
    hub.wake('i1');
    expect(woken).toBe(3);
    expect(snapshots.intentCount).toBe(1);
    b.close();
    expect(snapshots.intentCount).toBe(0);
  });

  it('lets the wake-up source refuse a subscription', () => {
    const refusing: WakeUpSource = {
      subscribe: () => {
        throw new Error('full');
      },
    };
    const snapshots = new IntentSnapshots(refusing, async () => 'x');
    expect(() => snapshots.subscribe('i1', () => {})).toThrow('full');
    expect(snapshots.intentCount).toBe(0);
  });
});
