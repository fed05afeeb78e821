/**
 * A toast when a swap started in this tab ends while the user is on another page of the app:
 * the swap page registers each swap it creates (`followSwapEnd`), the shell follows it through
 * the SDK's swap object (its event stream) and, at its end, shows the outcome with a link to its
 * progress page unless that page is the one open. An atomic swap ends in its own signing request,
 * which announces the end itself (`announceSwapEnd`) when the user left the card meanwhile.
 * Toasts stay until dismissed.
 */
import { type Swap, type SwapStatus, type SwapTerms, TERMINAL_STATES } from '@poolparty/sdk';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { useServices } from './services.js';
import { stateTitle, toastText } from './swap-state-titles.js';

/** Toasts shown at once; older ones give way. */
const TOASTS_MAX = 3;
/** Swaps followed at once for their end; the oldest is let go first. */
const FOLLOWED_MAX = 5;

let started: ((intentId: string) => void) | null = null;
let announced: ((toast: Toast) => void) | null = null;

/** Called by the swap page with each swap it created. */
export function followSwapEnd(intentId: string): void {
  started?.(intentId);
}

/** Called with a swap's end the page learnt itself (an atomic swap's execution). */
export function announceSwapEnd(toast: Toast): void {
  announced?.(toast);
}

export interface Toast {
  /** The swap's id: a deposit-flow intent's or an atomic swap's, both shown at `/swaps/{id}`. */
  readonly swapId: string;
  readonly state: string;
  readonly text: string;
}

/** The toast's words: the outcome and what was swapped. Pure. */
export function toastOf(status: SwapStatus): Toast {
  const { intentId, inputToken, outputToken } = status;
  return {
    swapId: intentId,
    state: status.status,
    text: toastText(stateTitle(status.status), status.expectedAmount, inputToken, outputToken),
  };
}

export function SwapEndToasts() {
  const toasts = useSwapEnds();
  if (toasts.list.length === 0) return null;
  return (
    <section class="toasts" aria-label="Swaps that ended">
      {toasts.list.map((toast) => (
        <p key={toast.swapId} class="toast" data-testid="swap-toast" data-state={toast.state}>
          <a href={`/swaps/${encodeURIComponent(toast.swapId)}`}>{toast.text}</a>
          <button type="button" aria-label="Dismiss" onClick={() => toasts.dismiss(toast.swapId)}>
            ×
          </button>
        </p>
      ))}
    </section>
  );
}

function useSwapEnds() {
  const { pp } = useServices();
  const { path } = useLocation();
  const here = useRef(path);
  here.current = path;
  const [list, setList] = useState<readonly Toast[]>([]);
  useEffect(() => {
    if (pp === null) return;
    const followed: Swap<SwapTerms>[] = [];
    const show = (toast: Toast) => {
      if (here.current === `/swaps/${encodeURIComponent(toast.swapId)}`) return;
      setList((shown) =>
        [toast, ...shown.filter((t) => t.swapId !== toast.swapId)].slice(0, TOASTS_MAX),
      );
    };
    announced = show;
    const ended = (status: SwapStatus) => show(toastOf(status));
    started = (intentId) => {
      pp.swaps.get(intentId).then(
        (swap) => {
          followed.push(swap);
          if (followed.length > FOLLOWED_MAX) stop(followed.shift());
          for (const state of TERMINAL_STATES) swap.on(state, ended);
        },
        // A swap that cannot be read is not toasted; its progress page still says where it is.
        () => undefined,
      );
    };
    const stop = (swap: Swap<SwapTerms> | undefined) => {
      for (const state of TERMINAL_STATES) swap?.off(state, ended);
    };
    return () => {
      started = null;
      announced = null;
      for (const swap of followed) stop(swap);
    };
  }, [pp]);
  const dismiss = (swapId: string) => setList((shown) => shown.filter((t) => t.swapId !== swapId));
  return { list, dismiss };
}
