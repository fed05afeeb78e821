/**
 * The withdrawal object `pp.liquidity.withdraw` returns: every Withdrawal field, plus `get()`,
 * `wait()` and `on()`. As with a liquidity intent object, nothing is followed until `on()` or
 * `wait()` asks: the withdrawal's event stream (`GET /v1/liquidity/withdrawals/{id}/events`),
 * reconnecting with `Last-Event-ID`, and polling `GET /v1/liquidity/withdrawals/{id}` only when
 * the stream is unavailable, until the withdrawal is `completed` or `flagged` or nobody listens or
 * waits any more. A payout to a party without a pre-approval is an offer (`state: 'offered'`) its
 * wallet must accept first.
 *
 * Events are told from what the object observes, by stream or by poll: `payout_offered`,
 * `payout_paid` and `payout_flagged` when a payout reaches that state, `completed` and `flagged`
 * when the withdrawal does. An observation older than what was seen (a payout back from `paid`)
 * is dropped; a flagged payout back to `pending` is an operator sending it again.
 */
import { PoolPartyError } from '../errors.js';
import type { CallOptions } from '../http/request-sender.js';
import { Followers } from '../swap/followers.js';
import { type StatusOrigin, type StatusSource, StatusWatcher } from '../swap/status-watcher.js';
import type { Payout, Withdrawal } from '../types.js';
import { type WaitBounds, withinBounds } from './deadline.js';

/** The events of a withdrawal object. */
export const WITHDRAWAL_EVENTS = [
  'payout_offered',
  'payout_paid',
  'payout_flagged',
  'completed',
  'flagged',
] as const;
export type WithdrawalEventName = (typeof WITHDRAWAL_EVENTS)[number];

/** Called with the withdrawal when one of its events happens. */
export type WithdrawalListener = (withdrawal: Withdrawal) => void;
/** Called when following the withdrawal failed for good (e.g. the wallet token expired). */
export type WithdrawalErrorListener = (error: unknown) => void;

/** What a withdrawal object needs from the client. */
export interface WithdrawalServices extends StatusSource<Withdrawal> {
  read(id: string, options?: CallOptions): Promise<Withdrawal>;
}

/** How long `wait()` follows by default: payouts commit in seconds, offers wait for a wallet. */
export const WITHDRAWAL_WAIT_MS = 10 * 60_000;

const ENDS: readonly string[] = ['completed', 'flagged'];

/** How far a payout got; only an operator's resend (`flagged` → `pending`) goes back. */
const PAYOUT_RANK: Readonly<Record<Payout['state'], number>> = {
  none: 0,
  pending: 0,
  offered: 1,
  flagged: 2,
  paid: 3,
};

function movedBack(before: Payout['state'], after: Payout['state']): boolean {
  return PAYOUT_RANK[after] < PAYOUT_RANK[before] && !(before === 'flagged' && after === 'pending');
}

/** The methods of a withdrawal object; its data are the Withdrawal fields. */
export class WithdrawalHandle {
  readonly #id: string;
  readonly #services: WithdrawalServices;
  readonly #watcher: StatusWatcher<Withdrawal>;
  readonly #followers = new Followers<Withdrawal>('withdrawal', WITHDRAWAL_EVENTS);
  #latest: Withdrawal;
  #followedBy: StatusOrigin | null = null;

  constructor(withdrawal: Withdrawal, services: WithdrawalServices) {
    this.#id = withdrawal.withdrawalId;
    this.#services = services;
    this.#latest = withdrawal;
    this.#watcher = new StatusWatcher(this.#id, services, {
      onStatus: (observed, origin) => {
        this.#followedBy = origin;
        return this.#observe(observed);
      },
      onError: (error) => this.#followers.tell('error', error),
    });
    this.#followers.watchWith(this.#watcher);
  }

  /** The withdrawal as last observed (its data fields are as created or read). */
  get latest(): Withdrawal {
    return this.#latest;
  }

  /**
   * How the latest change came while following: `'stream'` from the event stream, `'poll'` from
   * reading the withdrawal because the stream is unavailable; null before any.
   */
  get followedBy(): StatusOrigin | null {
    return this.#followedBy;
  }

  /** Reads the withdrawal now; an event it reveals fires before it resolves. */
  async get(options?: CallOptions): Promise<Withdrawal> {
    const read = await this.#services.read(this.#id, options);
    this.#observe(read);
    return read;
  }

  /** `get()` under the name the swap object uses. */
  refresh(options?: CallOptions): Promise<Withdrawal> {
    return this.get(options);
  }

  /** Calls `listener` when `event` happens (`payout_offered`, …, `completed`), or on `error`. */
  on(event: WithdrawalEventName, listener: WithdrawalListener): this;
  on(event: 'error', listener: WithdrawalErrorListener): this;
  on(event: string, listener: WithdrawalListener | WithdrawalErrorListener): this {
    this.#followers.listen(event, listener, this.#ended);
    return this;
  }

  /** Removes a listener; following stops when nobody listens or waits. */
  off(event: string, listener: WithdrawalListener | WithdrawalErrorListener): this {
    this.#followers.unlisten(event, listener);
    return this;
  }

  /**
   * Resolves with the withdrawal once both payouts were paid (`status: 'completed'`). Rejects
   * with a `PoolPartyError` of code `flagged` (the withdrawal as `body`) when a payout needs an
   * operator, with `TimeoutError` after `timeoutMs` (default ten minutes), or with the signal's
   * reason.
   */
  wait(options: WaitBounds = {}): Promise<Withdrawal> {
    const what = `Withdrawal ${this.#id}`;
    return withinBounds<Withdrawal>(what, options, WITHDRAWAL_WAIT_MS, (resolve, reject) => {
      const check = (w: Withdrawal) => {
        if (w.status === 'completed') resolve(w);
        else if (w.status === 'flagged') {
          reject(new PoolPartyError(`${what} is flagged`, { code: 'flagged', body: w }));
        }
      };
      check(this.#latest);
      return this.#followers.wait(check, this.#ended);
    });
  }

  get #ended(): boolean {
    return ENDS.includes(this.#latest.status);
  }

  #fire(event: WithdrawalEventName, withdrawal: Withdrawal): void {
    this.#followers.tell(event, withdrawal);
  }

  /** Takes an observation from any source; true once the withdrawal ended for following. */
  #observe(next: Withdrawal): boolean {
    const before = this.#latest;
    const stale =
      before.status === 'completed' ||
      movedBack(before.payoutA.state, next.payoutA.state) ||
      movedBack(before.payoutB.state, next.payoutB.state);
    if (stale) return ENDS.includes(before.status);
    this.#latest = next;
    for (const side of ['payoutA', 'payoutB'] as const) {
      const { state } = next[side];
      if (state === before[side].state) continue;
      if (state === 'offered' || state === 'paid' || state === 'flagged') {
        this.#fire(`payout_${state}`, next);
      }
    }
    if (next.status !== before.status && ENDS.includes(next.status)) {
      this.#fire(next.status as WithdrawalEventName, next);
    }
    this.#followers.observed(next);
    const ended = ENDS.includes(next.status);
    if (ended) this.#watcher.stop();
    return ended;
  }
}

/** A withdrawal object: the methods of `WithdrawalHandle` and the fields as created or read. */
export type WithdrawalObject = WithdrawalHandle & Readonly<Withdrawal>;

export function createWithdrawalObject(
  withdrawal: Withdrawal,
  services: WithdrawalServices,
): WithdrawalObject {
  return Object.assign(new WithdrawalHandle(withdrawal, services), withdrawal);
}
