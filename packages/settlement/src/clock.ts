/**
 * The service clock: what "now" means for nonces, tokens, intent expiry and discounts. It follows
 * the ledger's clock, which devnet tests and demos advance, so an intent expires when the ledger
 * says a day has passed.
 */
import type { LedgerPort } from '@poolparty/ledger';

export interface ServiceClock {
  now(): Date;
  /** Re-reads the clock it follows, after that clock was moved; absent where nothing moves it. */
  sync?(): Promise<void>;
}

export interface LedgerClockOptions {
  /** Re-read the ledger's time this often, for a ledger moved by another process. */
  readonly resyncEveryMs?: number;
  /** Never report a time before the system clock's (a ledger whose time stands still when idle). */
  readonly notBehindSystemClock?: boolean;
}

/**
 * Runs at the ledger's pace: real time plus the ledger's offset, re-read after every advance.
 * Reading the ledger on each call would put an await into every request for no gain, since the
 * offset only changes when someone advances the ledger clock.
 */
export class LedgerClock implements ServiceClock {
  private offsetMs = 0;
  private timer: NodeJS.Timeout | null = null;

  private constructor(
    private readonly ledger: Pick<LedgerPort, 'now'>,
    private readonly options: LedgerClockOptions,
  ) {}

  static async follow(
    ledger: Pick<LedgerPort, 'now'>,
    options: LedgerClockOptions = {},
  ): Promise<LedgerClock> {
    const clock = new LedgerClock(ledger, options);
    await clock.sync();
    if (options.resyncEveryMs !== undefined) {
      // A failed read keeps the last offset: the ledger being away for a moment does not move time.
      clock.timer = setInterval(() => void clock.sync().catch(() => {}), options.resyncEveryMs);
      clock.timer.unref();
    }
    return clock;
  }

  async sync(): Promise<void> {
    const ledgerNow = await this.ledger.now();
    const offsetMs = ledgerNow.getTime() - Date.now();
    this.offsetMs = this.options.notBehindSystemClock ? Math.max(0, offsetMs) : offsetMs;
  }

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  /** Stops re-reading the ledger. */
  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }
}

/**
 * Whether a look that runs at most once per `everyMs` of service-clock time is due at `nowMs`,
 * after the last one at `lastMs` (undefined: never looked). A clock set back makes it due: the
 * interval is measured on the clock as it now reads.
 */
export function isLookDue(lastMs: number | undefined, nowMs: number, everyMs: number): boolean {
  if (lastMs === undefined) return true;
  return nowMs < lastMs || nowMs - lastMs >= everyMs;
}

/**
 * Looks an engine takes at most once per interval of service-clock time, for work that falls due
 * by time alone (expiry, offer deadlines). The busy rounds of a burst, several a swap, would
 * otherwise each send a statement asking whether anything fell due.
 */
export class PeriodicLooks {
  private readonly last = new WeakMap<object, number>();

  /** `first`: whether an engine's first round looks at once or one interval later. */
  constructor(
    readonly everyMs: number,
    private readonly first: 'at-once' | 'after-interval',
  ) {}

  /** True when `owner` (an engine's context) should look now; the look is then counted as taken. */
  take(owner: object, now: Date): boolean {
    const nowMs = now.getTime();
    if (!this.last.has(owner) && this.first === 'after-interval') {
      this.last.set(owner, nowMs);
      return false;
    }
    if (!isLookDue(this.last.get(owner), nowMs, this.everyMs)) return false;
    this.last.set(owner, nowMs);
    return true;
  }
}
