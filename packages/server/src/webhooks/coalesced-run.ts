/**
 * One piece of work run at a time, however often it is asked for: asked while it runs, it runs
 * once more right after, so what was asked meanwhile is seen, and a burst of asks costs one run.
 */
export class CoalescedRun {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private lastStartedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly work: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
    private readonly now: () => number,
  ) {}

  /** Runs now, or right after the run in progress. */
  ask(): void {
    if (this.stopped) return;
    if (this.running !== null) {
      this.again = true;
      return;
    }
    this.lastStartedAt = this.now();
    this.running = this.work()
      .catch(this.onError)
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.ask();
        }
      });
  }

  /** When the last run started, on `now`'s clock. */
  get startedAt(): number {
    return this.lastStartedAt;
  }

  /** No runs after this; waits for the one in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }
}
