/**
 * A value kept in memory and re-read in the background, so that a request path reads it without
 * waiting on the store or the ledger.
 *
 * - A failed re-read keeps the last good value; its age (`loadedAtMs`) keeps growing, so callers
 *   that must not act on old data (the settlement-safety guard) can tell and fail closed.
 * - A refresh asked for while one is running is queued behind it (at most one), because the
 *   running one may have read the state from before the change the caller wants to see.
 */

export interface RefreshOptions {
  /** Re-read period; absent means only on `refresh()`. */
  readonly intervalMs?: number;
  readonly onError?: (error: unknown) => void;
  /** Wall-clock milliseconds; cache ages are real time, whatever the ledger clock says. */
  readonly nowMs?: () => number;
}

export interface Loaded<T> {
  readonly value: T;
  readonly loadedAtMs: number;
}

export class Refreshed<T> {
  private loaded: Loaded<T> | null = null;
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly load: () => Promise<T>,
    private readonly options: RefreshOptions = {},
  ) {}

  /** Loads once, then starts the periodic re-read. Resolves even when the first load failed. */
  async start(): Promise<void> {
    await this.refresh();
    const { intervalMs } = this.options;
    if (intervalMs === undefined || this.closed) return;
    this.timer = setInterval(() => void this.refresh(), intervalMs);
    // A cache must never keep the process alive on its own.
    this.timer.unref();
  }

  /** The last good value, or null when no load has succeeded yet. */
  current(): Loaded<T> | null {
    return this.loaded;
  }

  /** Re-reads; resolves once a load that started after this call has finished. */
  refresh(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.running === null) {
      this.running = this.run().finally(() => {
        this.running = null;
      });
      return this.running;
    }
    this.queued ??= this.running.then(() => {
      this.queued = null;
      return this.refresh();
    });
    return this.queued;
  }

  close(): void {
    this.closed = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  private async run(): Promise<void> {
    try {
      const value = await this.load();
      this.loaded = { value, loadedAtMs: (this.options.nowMs ?? Date.now)() };
    } catch (error) {
      // A read cut short by shutting down is no failure worth reporting.
      if (!this.closed) this.options.onError?.(error);
    }
  }
}
