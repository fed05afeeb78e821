/**
 * One store read per intent per wake-up, shared by every subscriber of that intent in this
 * process. A thousand SSE streams following one swap would otherwise each re-read the store on
 * every change: a thousand identical reads, one after the other on PGlite's single thread.
 *
 * The rule that keeps sharing exact: a subscriber woken at time t needs a read *begun* after t,
 * since a read begun before it may have missed the change the wake-up announces. Reads of an
 * intent are numbered as they begin; a wake-up records "I need read number ≥ (reads begun so
 * far) + 1", and any read with that number or a later one answers it — the one in flight, if it
 * began late enough, or the latest finished one. A subscriber that has not been woken since its
 * previous read asks for the same number again and gets that snapshot again. A new subscription
 * starts out needing the next read, so a stream opened mid-way never takes a read begun before
 * it subscribed.
 *
 * At most one read per intent is in flight: wake-ups that arrive during it wait for it to end
 * and then share the one read that follows. A failed read fails every subscriber waiting on it
 * (each ends as it would have on its own failed read); the next read starts afresh.
 */

/** Where wake-ups come from (the intent event hub). */
export interface WakeUpSource {
  subscribe(intentId: string, wakeUp: () => void): () => void;
}

export type ReadIntent<S> = (intentId: string) => Promise<S>;

export interface SnapshotSubscription<S> {
  /**
   * A snapshot of the intent read after this subscription began and after its latest wake-up;
   * shared with every other subscriber whose needs the same read answers.
   */
  read(): Promise<S>;
  /** Stops the wake-ups; idempotent. */
  close(): void;
}

interface Read<S> {
  readonly number: number;
  readonly result: Promise<S>;
}

interface IntentReads<S> {
  /** Reads begun so far; the number of the latest. */
  begun: number;
  inFlight: Read<S> | null;
  latest: { readonly number: number; readonly snapshot: S } | null;
  subscribers: number;
}

export class IntentSnapshots<S> {
  private readonly intents = new Map<string, IntentReads<S>>();

  constructor(
    private readonly wakeUps: WakeUpSource,
    private readonly readIntent: ReadIntent<S>,
  ) {}

  /** Intents with at least one subscriber (their state is dropped with the last one). */
  get intentCount(): number {
    return this.intents.size;
  }

  /**
   * Calls `onWake` whenever the intent may have new events, until `close`. Subscribes to the
   * wake-ups first (and throws what they throw, e.g. `SubscribersFullError`), so a change between
   * subscribing and the first read is heard.
   */
  subscribe(intentId: string, onWake: () => void): SnapshotSubscription<S> {
    let state: IntentReads<S> | undefined;
    let needs = 0;
    const unsubscribe = this.wakeUps.subscribe(intentId, () => {
      if (state === undefined) return;
      needs = state.begun + 1;
      onWake();
    });
    state = this.intents.get(intentId);
    if (state === undefined) {
      state = { begun: 0, inFlight: null, latest: null, subscribers: 0 };
      this.intents.set(intentId, state);
    }
    state.subscribers++;
    needs = state.begun + 1;
    const reads = state;
    let open = true;
    return {
      read: () => this.readAtLeast(intentId, reads, needs),
      close: () => {
        if (!open) return;
        open = false;
        unsubscribe();
        reads.subscribers--;
        if (reads.subscribers === 0 && this.intents.get(intentId) === reads) {
          this.intents.delete(intentId);
        }
      },
    };
  }

  /** A snapshot from read number `needs` or later. */
  private async readAtLeast(intentId: string, reads: IntentReads<S>, needs: number): Promise<S> {
    for (;;) {
      if (reads.latest !== null && reads.latest.number >= needs) return reads.latest.snapshot;
      const inFlight = reads.inFlight;
      if (inFlight === null) return this.begin(intentId, reads).result;
      if (inFlight.number >= needs) return inFlight.result;
      // Begun too early to answer this wake-up: let it finish, then share the read after it.
      await inFlight.result.catch(() => {});
    }
  }

  private begin(intentId: string, reads: IntentReads<S>): Read<S> {
    const number = ++reads.begun;
    // A reader that throws at once fails its waiters like one that rejects.
    const result = new Promise<S>((resolve) => resolve(this.readIntent(intentId))).then(
      (snapshot) => {
        if (reads.latest === null || reads.latest.number < number) {
          reads.latest = { number, snapshot };
        }
        return snapshot;
      },
    );
    const read = { number, result };
    reads.inFlight = read;
    // Registered before any waiter's continuation, so it runs first: a waiter that resumes finds
    // the slot free and begins the next read itself.
    const finish = () => {
      if (reads.inFlight === read) reads.inFlight = null;
    };
    result.then(finish, finish);
    return read;
  }
}
