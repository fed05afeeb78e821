/**
 * Who follows a live object (a liquidity intent, a withdrawal, an atomic swap): its listeners by
 * event — and `error` — and its waiters. The object's watcher runs while any of them is there and
 * the object has not ended; it stops when the last one leaves.
 */
import { ValidationError } from '../errors.js';

/** What the followers start and stop: the object's `StatusWatcher`. */
interface Watch {
  start(): void;
  stop(): void;
}

// biome-ignore lint/suspicious/noExplicitAny: event listeners and error listeners share one map.
type Listener = (value: any) => void;

export class Followers<T> {
  readonly #listeners = new Map<string, Set<Listener>>();
  readonly #waiters = new Set<(value: T) => void>();
  readonly #what: string;
  readonly #events: readonly string[];
  #watch: Watch | null = null;

  /** `what` names the object in errors ("liquidity", "atomic swap"); `events` those it tells. */
  constructor(what: string, events: readonly string[]) {
    this.#what = what;
    this.#events = events;
  }

  /** The watcher to run while someone follows; given once the object made it. */
  watchWith(watch: Watch): void {
    this.#watch = watch;
  }

  /** Adds a listener of `event` (one of the events, or `error`) and starts following. */
  listen(event: string, listener: Listener, ended: boolean): void {
    if (!this.#events.includes(event) && event !== 'error') {
      throw new ValidationError(`Unknown ${this.#what} event "${event}"`, {
        code: 'validation_error',
      });
    }
    const listeners = this.#listeners.get(event) ?? new Set();
    this.#listeners.set(event, listeners.add(listener));
    this.follow(ended);
  }

  /** Removes a listener; following stops when nobody listens or waits. */
  unlisten(event: string, listener: Listener): void {
    this.#listeners.get(event)?.delete(listener);
    this.idle();
  }

  /** Adds a waiter, told every observation, and starts following; the answer removes it. */
  wait(waiter: (value: T) => void, ended: boolean): () => void {
    this.#waiters.add(waiter);
    this.follow(ended);
    return () => {
      this.#waiters.delete(waiter);
      this.idle();
    };
  }

  /** Calls the listeners of `event` with `value`. */
  tell(event: string, value: unknown): void {
    for (const listener of [...(this.#listeners.get(event) ?? [])]) listener(value);
  }

  /** Gives an observation to every waiter. */
  observed(value: T): void {
    for (const waiter of [...this.#waiters]) waiter(value);
  }

  /** Starts the watcher unless the object has ended. */
  follow(ended: boolean): void {
    if (!ended) this.#watch?.start();
  }

  /** Stops the watcher when nobody listens or waits. */
  idle(): void {
    const listening = [...this.#listeners.values()].some((set) => set.size > 0);
    if (!listening && this.#waiters.size === 0) this.#watch?.stop();
  }
}
