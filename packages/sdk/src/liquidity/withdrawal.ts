/**
 * The withdrawal object `pp.liquidity.withdraw` returns: every Withdrawal field, plus `get()` and
 * `wait()`, which polls `GET /v1/liquidity/withdrawals/{id}` until both payouts ended. A payout to
 * a party without a pre-approval is an offer (`state: 'offered'`) its wallet must accept first.
 */
import { PoolPartyError } from '../errors.js';
import type { Sleep } from '../http/abort.js';
import type { CallOptions } from '../http/request-sender.js';
import type { Withdrawal } from '../types.js';
import { type WaitBounds, withinBounds } from './deadline.js';

/** What a withdrawal object needs from the client. */
export interface WithdrawalServices {
  read(id: string, options?: CallOptions): Promise<Withdrawal>;
  readonly sleep: Sleep;
  readonly pollIntervalMs: number;
}

/** How long `wait()` polls by default: payouts commit in seconds, offers wait for a wallet. */
export const WITHDRAWAL_WAIT_MS = 10 * 60_000;

export class WithdrawalHandle {
  readonly #id: string;
  readonly #services: WithdrawalServices;
  #latest: Withdrawal;

  constructor(withdrawal: Withdrawal, services: WithdrawalServices) {
    this.#id = withdrawal.withdrawalId;
    this.#services = services;
    this.#latest = withdrawal;
  }

  /** The withdrawal as last read. */
  get latest(): Withdrawal {
    return this.#latest;
  }

  /** Reads the withdrawal now. */
  async get(options?: CallOptions): Promise<Withdrawal> {
    this.#latest = await this.#services.read(this.#id, options);
    return this.#latest;
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
      const polling = new AbortController();
      const poll = async () => {
        for (let w = this.#latest; ; w = await this.get({ signal: polling.signal })) {
          if (w.status === 'completed') return resolve(w);
          if (w.status === 'flagged') {
            return reject(new PoolPartyError(`${what} is flagged`, { code: 'flagged', body: w }));
          }
          await this.#services.sleep(this.#services.pollIntervalMs, polling.signal);
        }
      };
      poll().catch((error) => polling.signal.aborted || reject(error));
      return () => polling.abort();
    });
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
