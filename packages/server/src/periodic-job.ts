/**
 * A worker's periodic job: a round now and then one every interval, never two at once, until
 * stopped. Housekeeping and the treasury sweeper run on it; each says what a round does, what
 * follows a round that ended, and where a failed round is told (the next round tries again).
 */
export interface PeriodicRound<T> {
  readonly run: () => Promise<T>;
  readonly onDone: (result: T) => void;
  readonly onError: (error: unknown) => void;
}

export class PeriodicJob<T> {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(private readonly round: PeriodicRound<T>) {}

  start(intervalMs: number): void {
    this.tick();
    this.timer = setInterval(() => this.tick(), intervalMs);
    // A job alone must not keep the process alive: stop() ends it with the service.
    this.timer.unref();
  }

  /** Stops the timer and waits for a round in progress, so the store can close after it. */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  private tick(): void {
    // A round that outlasts the interval is not doubled: the tick that finds it running waits.
    if (this.running !== null) return;
    this.running = this.round
      .run()
      .then(this.round.onDone, this.round.onError)
      .finally(() => {
        this.running = null;
      });
  }
}
