/**
 * The bounds of a liquidity `wait()`: it settles when `watch` settles it, and rejects with
 * `TimeoutError` when `timeoutMs` passes or with the signal's reason when aborted; `stop` runs
 * once whichever comes first.
 */
import { TimeoutError } from '../errors.js';

/** `setTimeout` cannot wait longer than this (about 24.8 days). */
const TIMER_MS_MAX = 2 ** 31 - 1;

export interface WaitBounds {
  /** Milliseconds before rejecting with `TimeoutError`. */
  readonly timeoutMs?: number;
  /** Stops waiting; `wait()` then rejects with the signal's reason. What is waited for goes on. */
  readonly signal?: AbortSignal;
}

export function withinBounds<T>(
  what: string,
  bounds: WaitBounds,
  defaultMs: number,
  watch: (resolve: (value: T) => void, reject: (error: unknown) => void) => () => void,
): Promise<T> {
  const { signal } = bounds;
  if (signal?.aborted) return Promise.reject(signal.reason);
  const timeoutMs = Math.max(0, Math.min(bounds.timeoutMs ?? defaultMs, TIMER_MS_MAX));
  return new Promise<T>((resolve, reject) => {
    let stop = () => {};
    const end = (settle: () => void) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      stop();
      settle();
    };
    const onAbort = () => end(() => reject(signal?.reason));
    const timer = setTimeout(() => {
      const error = new TimeoutError(`${what} did not end within ${timeoutMs} ms`, {
        code: 'wait_timeout',
      });
      end(() => reject(error));
    }, timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    stop = watch(
      (value) => end(() => resolve(value)),
      (error) => end(() => reject(error)),
    );
  });
}
