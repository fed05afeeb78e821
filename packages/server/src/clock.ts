/**
 * The service clock: what "now" means for nonces, tokens, intent expiry and discounts. On mainnet
 * it is the system clock. In devnet mode it follows the devnet ledger's clock, which tests and
 * demos advance, so an intent expires when the ledger says a day has passed.
 */
import type { LedgerPort } from '@poolparty/ledger';

export interface ServiceClock {
  now(): Date;
  /** Re-reads the clock it follows, after that clock was moved; absent where nothing moves it. */
  sync?(): Promise<void>;
}

export const systemClock: ServiceClock = { now: () => new Date() };

/**
 * Runs at the ledger's pace: real time plus the ledger's offset, re-read after every advance.
 * Reading the ledger on each call would put an await into every request for no gain, since the
 * offset only changes when someone advances the ledger clock.
 */
export class LedgerClock implements ServiceClock {
  private offsetMs = 0;

  private constructor(private readonly ledger: Pick<LedgerPort, 'now'>) {}

  static async follow(ledger: Pick<LedgerPort, 'now'>): Promise<LedgerClock> {
    const clock = new LedgerClock(ledger);
    await clock.sync();
    return clock;
  }

  async sync(): Promise<void> {
    const ledgerNow = await this.ledger.now();
    this.offsetMs = ledgerNow.getTime() - Date.now();
  }

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
}
