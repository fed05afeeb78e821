/**
 * The swap object `swaps.create` returns (docs/spec/sdk.md#swap-object): every
 * SwapIntent field, plus events, `wait()`, `cancel()` and `refresh()`. `swaps.get(intentId)`
 * rebuilds one for an existing swap (after a page reload, in another process) from its status.
 *
 * Nothing is watched until it is asked for: the first `on()` or `wait()` starts following the
 * swap, and it stops when the swap ends or nobody listens or waits any more. Each state event and
 * each leg event (`payout_offered`, …) fires at most once per swap object, in lifecycle order
 * (see progress.ts).
 *
 * A rebuilt object does not fire again what its predecessor saw: given the last event id the
 * predecessor saw (`swap.lastEventId`, stored by the app), the stream resumes after it and what
 * precedes the first event it sends counts as seen; without one, everything the status showed
 * when it was rebuilt counts as seen. If the stream is unavailable and polling takes over before
 * any event arrived, the status at rebuild time is the baseline either way (events between the
 * stored id and the rebuild then do not fire; `wait()` still settles as it would have).
 */
import { outcomeErrorFor } from '../error-mapping.js';
import { PoolPartyError, ValidationError, WaitTimeoutError } from '../errors.js';
import type { CallOptions, WriteOptions } from '../http/request-sender.js';
import type { QuoteParams } from '../resources/quotes.js';
import { isTerminal, LEG_EVENT_NAMES, SWAP_EVENT_NAMES } from '../states.js';
import type {
  CancelResult,
  Leg,
  Quote,
  RefundLeg,
  SwapIntent,
  SwapStatus,
  SwapTerms,
} from '../types.js';
import {
  type DepositCheck,
  type DepositCheckTerms,
  judgeDeposit,
  QUOTE_REFUSAL_CODES,
  refusalForQuoteError,
  refusalForStatus,
} from './deposit-check.js';
import {
  advance,
  INITIAL_PROGRESS,
  lifecycleRank,
  type ProgressEvent,
  type SwapObjectEventName,
  seenBefore,
  seenThrough,
} from './progress.js';
import { type StatusOrigin, type StatusSource, StatusWatcher } from './status-watcher.js';

/**
 * Called with the swap's status when it enters a state or a leg event happens; `event` says which
 * and when. For a leg event the status shows the leg as the event left it (e.g. `payout.offerId`).
 */
export type SwapEventHandler = (status: SwapStatus, event: ProgressEvent) => void;
/** Called when following the swap failed for good (e.g. the wallet token expired). */
export type SwapErrorHandler = (error: unknown) => void;

/** Options of `swap.wait()`. */
export interface WaitOptions {
  /** Stops waiting; `wait()` then rejects with the signal's reason. The swap itself goes on. */
  readonly signal?: AbortSignal;
  /**
   * Milliseconds to wait before rejecting with `WaitTimeoutError` (a `TimeoutError`, code
   * `wait_timeout`). Default `DEFAULT_WAIT_TIMEOUT_MS`, 5 minutes.
   */
  readonly timeout?: number;
}

/** What `swap.wait()` resolves with: the final status of a completed swap. */
export type SwapResult = SwapStatus & {
  readonly status: 'completed';
  /** Output paid to the depositor party. */
  readonly actualOutput: string;
  /** The token paid out. */
  readonly outputToken: string;
};

/** What a swap object needs from the client. */
export interface SwapServices extends StatusSource {
  cancel(intentId: string, options?: WriteOptions): Promise<CancelResult>;
  getStatusOnce(intentId: string, options?: CallOptions): Promise<SwapStatus>;
  quote(params: QuoteParams, options?: CallOptions): Promise<Quote>;
  now(): number;
}

/**
 * How long `wait()` waits by default: a deposit is seen and settled within seconds, so five
 * minutes is ample for a swap whose deposit was sent, and short enough that an app which forgot
 * to send it hears so. A swap still waiting for its deposit can be waited for longer with
 * `timeout`; the intent itself lasts until `expiresAt` either way.
 */
export const DEFAULT_WAIT_TIMEOUT_MS = 5 * 60_000;
/** `setTimeout` cannot wait longer than this (about 24.8 days). */
const TIMER_MS_MAX = 2 ** 31 - 1;

/** Where a rebuilt swap object picks up (see the module comment). */
export interface SwapResume {
  /** The status read when the object was rebuilt. */
  readonly status: SwapStatus;
  /** The last event id a previous object saw; null to take `status` as seen. */
  readonly lastEventId: string | null;
}

interface Waiter {
  readonly settle: (status: SwapStatus) => void;
  readonly fail: (error: unknown) => void;
}

/** The methods of a swap object; its data are the SwapIntent fields. */
export class SwapHandle {
  readonly #intentId: string;
  readonly #terms: DepositCheckTerms;
  readonly #services: SwapServices;
  readonly #watcher: StatusWatcher;
  readonly #handlers = new Map<string, Set<SwapEventHandler | SwapErrorHandler>>();
  readonly #waiters = new Set<Waiter>();
  #progress = INITIAL_PROGRESS;
  #latest: SwapStatus | null = null;
  /** Set while a resumed object waits for its first observation to fix what counts as seen. */
  #resumedAfterEvent: SwapStatus | null = null;

  /**
   * @param intent - The created intent (or the terms of a rebuilt one).
   * @param services - How to read, follow and cancel it.
   * @param resume - For an object rebuilt from an intent id: where it picks up.
   */
  constructor(intent: DepositCheckTerms, services: SwapServices, resume?: SwapResume) {
    this.#intentId = intent.intentId;
    this.#terms = intent;
    this.#services = services;
    this.#watcher = new StatusWatcher(
      intent.intentId,
      services,
      {
        onStatus: (status, origin) => this.#observe(status, origin),
        onStreamEndedQuietly: () => this.#endedBeforeResume(),
        onError: (error) => this.#fail(error),
      },
      resume?.lastEventId ?? null,
    );
    if (resume === undefined) return;
    if (resume.lastEventId === null) {
      this.#latest = resume.status;
      this.#progress = seenThrough(resume.status);
    } else {
      this.#resumedAfterEvent = resume.status;
    }
  }

  /** The latest status observed (by events, `wait()` or `refresh()`); null before the first. */
  get latestStatus(): SwapStatus | null {
    return this.#latest ?? this.#resumedAfterEvent;
  }

  /** The payout as last observed: `state: 'offered'` waits for the user to accept `offerId`. */
  get payout(): Leg | null {
    return this.latestStatus?.payout ?? null;
  }

  /** The refund as last observed; `state: 'offered'` waits for the user to accept `offerId`. */
  get refund(): RefundLeg | null {
    return this.latestStatus?.refund ?? null;
  }

  /**
   * The id of the last stream event this object saw. Store it (e.g. with the intent id) and pass
   * it to `swaps.get(intentId, { lastEventId })` so a rebuilt object fires only what came after.
   */
  get lastEventId(): string | null {
    return this.#watcher.lastEventId;
  }

  /**
   * Registers `handler` for a state event (`matched`, …, `completed`, `slippage_failed`, …), a
   * leg event (`payout_offered`, `payout_accepted`, `refund_offered`, …) or `error`. Starts
   * following the swap.
   */
  on(event: SwapObjectEventName, handler: SwapEventHandler): this;
  on(event: 'error', handler: SwapErrorHandler): this;
  on(event: SwapObjectEventName | 'error', handler: SwapEventHandler | SwapErrorHandler): this {
    checkEventName(event);
    let handlers = this.#handlers.get(event);
    if (!handlers) {
      handlers = new Set();
      this.#handlers.set(event, handlers);
    }
    handlers.add(handler);
    this.#follow();
    return this;
  }

  /** Removes a handler registered with `on`; following stops when nobody listens or waits. */
  off(event: SwapObjectEventName | 'error', handler: SwapEventHandler | SwapErrorHandler): this {
    this.#handlers.get(event)?.delete(handler);
    this.#unfollowIfIdle();
    return this;
  }

  /**
   * Resolves when the swap completes, with its final status, `actualOutput` and `outputToken`.
   * Rejects at any other terminal state with the matching `SwapOutcomeError` (`SlippageError`,
   * `CancelledError`, …) carrying the final status, with `TimeoutError` when `timeout` passes, or
   * with the signal's reason when aborted.
   */
  wait(options: WaitOptions = {}): Promise<SwapResult> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#latest !== null && isTerminal(this.#latest.status)) {
      return settled(this.#latest);
    }
    return new Promise<SwapResult>((resolve, reject) => {
      const timeoutMs = Math.min(options.timeout ?? DEFAULT_WAIT_TIMEOUT_MS, TIMER_MS_MAX);
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#waiters.delete(waiter);
        this.#unfollowIfIdle();
      };
      const waiter: Waiter = {
        settle: (status) => {
          done();
          settled(status).then(resolve, reject);
        },
        fail: (error) => {
          done();
          reject(error);
        },
      };
      const onAbort = () => waiter.fail(signal?.reason);
      const timer = setTimeout(
        () => waiter.fail(new WaitTimeoutError(this.#intentId, timeoutMs, this.latestStatus)),
        Math.max(0, timeoutMs),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.add(waiter);
      this.#follow();
    });
  }

  /** Cancels the pending intent (before a deposit). Waiters then reject with `CancelledError`. */
  cancel(options?: WriteOptions): Promise<CancelResult> {
    return this.#services.cancel(this.#intentId, options);
  }

  /** Reads the status now; state events it reveals fire before it resolves. */
  async refresh(options?: CallOptions): Promise<SwapStatus> {
    const status = await this.#services.getStatusOnce(this.#intentId, options);
    this.#observe(status, 'poll');
    return status;
  }

  /**
   * Whether a deposit sent now could complete the swap: re-reads the intent (it must be
   * `pending`) and re-quotes its exact deposit, then compares the fresh output with `minOutput`.
   * Call it right before the wallet sends the deposit; `DevnetWallet.deposit` does. A refusal
   * (`ok: false`) says why, with the figures; a failed read or quote rejects as that call does.
   */
  async canDeposit(options?: CallOptions): Promise<DepositCheck> {
    const status = await this.#services.getStatusOnce(this.#intentId, options);
    this.#observe(status, 'poll');
    const notPending = refusalForStatus(status);
    if (notPending !== null) return notPending;
    const terms = this.#terms;
    try {
      const quote = await this.#services.quote(
        {
          from: terms.inputToken,
          to: terms.outputToken,
          amount: terms.expectedAmount,
          poolId: terms.poolId,
          receiverParty: terms.outputAddress,
        },
        options,
      );
      return judgeDeposit(terms, quote);
    } catch (error) {
      if (error instanceof PoolPartyError && QUOTE_REFUSAL_CODES.includes(error.code)) {
        return refusalForQuoteError(
          terms.intentId,
          error.code,
          error.details ?? error.shortMessage,
        );
      }
      throw error;
    }
  }

  #follow(): void {
    if (this.#latest !== null && isTerminal(this.#latest.status)) return;
    this.#watcher.start();
  }

  #unfollowIfIdle(): void {
    const listening = [...this.#handlers.values()].some((handlers) => handlers.size > 0);
    if (!listening && this.#waiters.size === 0) this.#watcher.stop();
  }

  /**
   * A resumed object's stream ended at once, with nothing after the stored event: the swap had
   * ended by then and the stored event was its last. Nothing more fires; waiters settle.
   */
  #endedBeforeResume(): boolean {
    const resumed = this.#resumedAfterEvent;
    if (resumed === null || !isTerminal(resumed.status)) return false;
    this.#resumedAfterEvent = null;
    this.#progress = seenThrough(resumed);
    return this.#observe(resumed, 'poll');
  }

  /** Takes a status from any source; returns true when the swap has ended. */
  #observe(status: SwapStatus, origin: StatusOrigin): boolean {
    const resumed = this.#resumedAfterEvent;
    if (resumed !== null) {
      // The first event after the stored id is the first one not seen; without a stream there
      // is no telling, so the status at rebuild time counts as seen.
      this.#resumedAfterEvent = null;
      this.#progress = origin === 'stream' ? seenBefore(status) : seenThrough(resumed);
    }
    const latestRank = this.#latest === null ? -1 : lifecycleRank(this.#latest.status);
    if (lifecycleRank(status.status) >= latestRank) this.#latest = status;
    const step = advance(this.#progress, status);
    this.#progress = step.progress;
    for (const event of step.events) this.#emit(event.name, status, event);
    if (!isTerminal(status.status)) return false;
    this.#watcher.stop();
    for (const waiter of [...this.#waiters]) waiter.settle(status);
    return true;
  }

  #fail(error: unknown): void {
    for (const handler of [...(this.#handlers.get('error') ?? [])]) {
      callSafely(() => (handler as SwapErrorHandler)(error));
    }
    for (const waiter of [...this.#waiters]) waiter.fail(error);
  }

  #emit(name: SwapObjectEventName, status: SwapStatus, event: ProgressEvent): void {
    for (const handler of [...(this.#handlers.get(name) ?? [])]) {
      callSafely(() => (handler as SwapEventHandler)(status, event));
    }
  }
}

/**
 * A swap object: the methods of `SwapHandle` and the data it was made from — every SwapIntent
 * field for `swaps.create`, the swap's terms (`SwapTerms`, as of the rebuild) for `swaps.get`.
 * The data fields are a snapshot; `latestStatus`, `payout` and `refund` follow the swap.
 */
export type Swap<Data extends SwapTerms = SwapIntent> = SwapHandle & Readonly<Data>;

/** Makes the swap object for a created intent, or for an existing one to resume. */
export function createSwapObject<Data extends SwapTerms>(
  data: Data,
  services: SwapServices,
  resume?: SwapResume,
): Swap<Data> {
  return Object.assign(new SwapHandle(data, services, resume), data);
}

function settled(status: SwapStatus): Promise<SwapResult> {
  if (status.status !== 'completed') return Promise.reject(outcomeErrorFor(status));
  const actualOutput = status.actualOutput ?? status.payout?.amount ?? '0';
  return Promise.resolve({ ...status, status: 'completed', actualOutput });
}

const EVENT_NAMES: readonly string[] = [...SWAP_EVENT_NAMES, ...LEG_EVENT_NAMES, 'error'];

function checkEventName(event: string): void {
  if (EVENT_NAMES.includes(event)) return;
  throw new ValidationError(`Unknown swap event "${event}"`, {
    code: 'validation_error',
    details: `Events are: ${EVENT_NAMES.join(', ')}.`,
  });
}

/** A handler that throws must not stop the others or the swap: its error is rethrown apart. */
function callSafely(call: () => void): void {
  try {
    call();
  } catch (error) {
    queueMicrotask(() => {
      throw error;
    });
  }
}
