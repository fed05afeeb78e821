/**
 * Cancellation: the caller's `AbortSignal` joined with a timeout, and a sleep that stops when
 * aborted. Written against the web platform only, so it runs in browsers and Node alike.
 */

/** Waits `ms`, or rejects with the signal's reason as soon as it is aborted. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const sleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** A signal that aborts when the parent does or when the time is up, whichever comes first. */
export interface Deadline {
  readonly signal: AbortSignal;
  /** True when it was the time that ran out, not the parent. */
  timedOut(): boolean;
  /** Stops the timer and the parent subscription; call when the work is done. */
  dispose(): void;
}

/** Joins `parent` with a timeout of `timeoutMs` (none when `timeoutMs` is not finite). */
export function deadline(parent: AbortSignal | undefined, timeoutMs: number): Deadline {
  const controller = new AbortController();
  let expired = false;
  const onParentAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted) controller.abort(parent.reason);
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  const timer = Number.isFinite(timeoutMs)
    ? setTimeout(() => {
        expired = true;
        controller.abort(new Error(`timed out after ${timeoutMs} ms`));
      }, timeoutMs)
    : undefined;
  return {
    signal: controller.signal,
    timedOut: () => expired,
    dispose: () => {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParentAbort);
    },
  };
}

/**
 * Settles as `work` does, or rejects with the signal's reason as soon as it aborts, whichever
 * comes first. A `fetch` passed in by the app may ignore its signal and never settle; the
 * timeout must fire all the same. `work` keeps a handler either way, so its late rejection is
 * never reported as unhandled.
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
