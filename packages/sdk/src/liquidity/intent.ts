/**
 * The liquidity intent object `pp.liquidity.create` returns: every LiquidityIntent field, plus
 * `get()`, `cancel()`, `wait()` and `on()`. As with a swap object, nothing is followed until
 * `on()` or `wait()` asks: the intent's event stream
 * (`GET /v1/liquidity/intents/{id}/events`), with polling when the stream is unavailable, until
 * the intent ends or nobody listens or waits any more. Each state fires at most once per object
 * and never after a later one: a state the object did not observe (a poll between two changes)
 * is not invented.
 */
import { LIQUIDITY_STATES, LIQUIDITY_TERMINAL_STATES } from '../catalogue.js';
import { PoolPartyError } from '../errors.js';
import type { CallOptions, WriteOptions } from '../http/request-sender.js';
import { Followers } from '../swap/followers.js';
import { type StatusOrigin, type StatusSource, StatusWatcher } from '../swap/status-watcher.js';
import type { LiquidityIntent, LiquidityState } from '../types.js';
import { type WaitBounds, withinBounds } from './deadline.js';

/** Called with the intent when it enters a state. */
export type LiquidityListener = (intent: LiquidityIntent) => void;
/** Called when following the intent failed for good (e.g. the wallet token expired). */
export type LiquidityErrorListener = (error: unknown) => void;
/** The events of a liquidity intent object: every state but `pending`, where it starts. */
export type LiquidityEventName = Exclude<LiquidityState, 'pending'>;

/** Options of `intent.wait()`. */
export interface LiquidityWaitOptions extends WaitBounds {
  /**
   * Resolve once the intent reached this state or one after it (`partial`, `joining`); default
   * `completed`. An end other than `completed` rejects unless it is the state asked for.
   */
  readonly until?: LiquidityState;
}

/** What a liquidity intent object needs from the client. */
export interface LiquidityServices extends StatusSource<LiquidityIntent> {
  read(id: string, options?: CallOptions): Promise<LiquidityIntent>;
  cancel(id: string, options?: WriteOptions): Promise<LiquidityIntent>;
  now(): number;
}

/** How long `wait()` keeps going past `expiresAt` by default: a refund after a late side. */
const WAIT_GRACE_MS = 10 * 60_000;
const TERMINAL: readonly string[] = LIQUIDITY_TERMINAL_STATES;

/** The way to units, in order: `wait({ until })` on it also resolves at a later state of it. */
const TO_UNITS: readonly string[] = ['pending', 'partial', 'joining', 'completed'];

/** Lifecycle order: the open states, `joining`, `refunding`, then every end. */
function rank(state: string): number {
  return TERMINAL.includes(state)
    ? 9
    : ['pending', 'partial', 'joining', 'refunding'].indexOf(state);
}

/** The methods of a liquidity intent object; its data are the LiquidityIntent fields. */
export class LiquidityIntentHandle {
  readonly #id: string;
  readonly #services: LiquidityServices;
  readonly #watcher: StatusWatcher<LiquidityIntent>;
  readonly #followers = new Followers<LiquidityIntent>('liquidity', LIQUIDITY_STATES);
  #latest: LiquidityIntent;
  #followedBy: StatusOrigin | null = null;

  constructor(intent: LiquidityIntent, services: LiquidityServices) {
    this.#id = intent.liquidityIntentId;
    this.#services = services;
    this.#latest = intent;
    this.#watcher = new StatusWatcher(this.#id, services, {
      onStatus: (observed, origin) => {
        this.#followedBy = origin;
        return this.#observe(observed);
      },
      onError: (error) => this.#followers.tell('error', error),
    });
    this.#followers.watchWith(this.#watcher);
  }

  /** The intent as last observed (its data fields are as created). */
  get latest(): LiquidityIntent {
    return this.#latest;
  }

  /**
   * How the latest change came while following: `'stream'` from the event stream, `'poll'` from
   * reading the intent because the stream is unavailable; null before any.
   */
  get followedBy(): StatusOrigin | null {
    return this.#followedBy;
  }

  /** Reads the intent now; a state it reveals fires before it resolves. */
  async get(options?: CallOptions): Promise<LiquidityIntent> {
    return this.#seen(await this.#services.read(this.#id, options));
  }

  /** `get()` under the name the swap object uses. */
  refresh(options?: CallOptions): Promise<LiquidityIntent> {
    return this.get(options);
  }

  /** Cancels the intent while nothing arrived (`ConflictError` after); waiters then reject. */
  async cancel(options?: WriteOptions): Promise<LiquidityIntent> {
    return this.#seen(await this.#services.cancel(this.#id, options));
  }

  /** Calls `listener` when the intent enters `event` (a state but `pending`), or on `error`. */
  on(event: LiquidityEventName, listener: LiquidityListener): this;
  on(event: 'error', listener: LiquidityErrorListener): this;
  on(event: string, listener: LiquidityListener | LiquidityErrorListener): this {
    this.#followers.listen(event, listener, this.#ended);
    return this;
  }

  /** Removes a listener; following stops when nobody listens or waits. */
  off(event: string, listener: LiquidityListener | LiquidityErrorListener): this {
    this.#followers.unlisten(event, listener);
    return this;
  }

  /**
   * Resolves with the intent once it is `completed` (or reached `until`). Rejects at any other
   * end with a `PoolPartyError` whose `code` is the state and `body` the intent, with
   * `TimeoutError` after `timeoutMs` (default: `expiresAt` and ten minutes), or with the
   * signal's reason.
   */
  wait(options: LiquidityWaitOptions = {}): Promise<LiquidityIntent> {
    const until = options.until ?? 'completed';
    const untilMs = Date.parse(this.#latest.expiresAt) - this.#services.now() + WAIT_GRACE_MS;
    return withinBounds(`Liquidity intent ${this.#id}`, options, untilMs, (resolve, reject) => {
      const goal = TO_UNITS.indexOf(until);
      const check = (intent: LiquidityIntent) => {
        const { status } = intent;
        if (status === until || (goal >= 0 && TO_UNITS.indexOf(status) >= goal)) resolve(intent);
        else if (TERMINAL.includes(status)) reject(outcomeError(intent));
      };
      check(this.#latest);
      return this.#followers.wait(check, this.#ended);
    });
  }

  get #ended(): boolean {
    return TERMINAL.includes(this.#latest.status);
  }

  #seen(intent: LiquidityIntent): LiquidityIntent {
    this.#observe(intent);
    return intent;
  }

  /** Takes an observation from any source; true when the intent has ended. */
  #observe(intent: LiquidityIntent): boolean {
    const before = this.#latest.status;
    if (rank(intent.status) < rank(before)) return false;
    this.#latest = intent;
    if (intent.status !== before) this.#followers.tell(intent.status, intent);
    this.#followers.observed(intent);
    const ended = TERMINAL.includes(intent.status);
    if (ended) this.#watcher.stop();
    return ended;
  }
}

/** Why `wait()` rejects: the intent ended (or moved past `until`) without what was asked. */
function outcomeError(intent: LiquidityIntent): PoolPartyError {
  return new PoolPartyError(`Liquidity intent ${intent.liquidityIntentId} is ${intent.status}`, {
    code: intent.status,
    body: intent,
    ...(intent.failure && { details: intent.failure.message }),
  });
}

/**
 * A liquidity intent object: the methods of `LiquidityIntentHandle` and the intent's fields as
 * created or read; `latest` follows the intent.
 */
export type LiquidityIntentObject = LiquidityIntentHandle & Readonly<LiquidityIntent>;

export function createLiquidityIntentObject(
  intent: LiquidityIntent,
  services: LiquidityServices,
): LiquidityIntentObject {
  return Object.assign(new LiquidityIntentHandle(intent, services), intent);
}
