/**
 * An atomic swap on the swap card (docs/spec/atomic-swaps.md, "The web app"): the swap is
 * prepared and its transaction read by the SDK's `verify()`; both legs and the time left to sign
 * are shown; one button (Enter) has the wallet sign the hash; then the result: completed, with
 * its update and the excess the LPs keep, or nothing moved and why, with the way on. A
 * transaction `verify()` refuses is shown refused and never signed. A chunk of its own, with the
 * SDK's atomic entry: loaded when a wallet that signs hashes swaps.
 */
import type { PoolParty } from '@poolparty/sdk';
import { type AtomicSwap, type AtomicSwapObject, withAtomicSwaps } from '@poolparty/sdk/atomic';
import { useEffect, useRef, useState } from 'preact/hooks';
import { atomicOutcome, legLines, signingDeadline, timeLeft } from '../atomic-swap-model.js';
import { AtomicSwapOutcome } from '../components/atomic-swap-outcome.js';
import { describeError, errorCode } from '../describe-error.js';
import { useServices } from '../services.js';
import { announceSwapEnd } from '../swap-end-toasts.js';
import { atomicStateTitle, toastText } from '../swap-state-titles.js';

/** What the card asks to swap: the pair, its pool, the exact input and the slippage limit. */
export interface AtomicSwapRequest {
  readonly fromToken: string;
  readonly fromAdmin: string;
  readonly toToken: string;
  readonly toAdmin: string;
  readonly poolId: string;
  readonly amount: string;
  readonly slippageBps: number;
}

export interface AtomicSwapReviewProps {
  readonly request: AtomicSwapRequest;
  /** The service prepares no atomic swaps (`atomic_swaps_unavailable`): swap by deposit. */
  onDepositOnly(): void;
  /** Back to the card: cancelled, or done with the result. */
  onClose(): void;
  /** The swap ended: balances and the party's swaps are to be read again. */
  onEnded(): void;
}

interface Review {
  readonly kind: 'review';
  readonly swap: AtomicSwapObject;
  readonly legs: Awaited<ReturnType<AtomicSwapObject['verify']>>;
  /** When the signing window ends, on `performance.now()`'s clock. */
  readonly deadlineMs: number;
  /** Prepared again after the ledger found an input spent: a new transaction to sign. */
  readonly again: boolean;
}

type Stage =
  | { readonly kind: 'working'; readonly says: string }
  | Review
  | { readonly kind: 'refused'; readonly message: string }
  | { readonly kind: 'ended'; readonly swap: AtomicSwap };

/** The transaction's legs checked, or refused and let go (never signed). */
async function checked(
  swap: AtomicSwapObject,
  receivedAtMs: number,
  again: boolean,
): Promise<Stage> {
  try {
    const legs = await swap.verify();
    const deadlineMs = signingDeadline(swap.data, receivedAtMs);
    return { kind: 'review', swap, legs, deadlineMs, again };
  } catch (caught) {
    // Refused before signing: cancelling frees the pool's holdings at once, not at expiry.
    void swap.cancel().catch(() => undefined);
    return { kind: 'refused', message: describeError(caught) };
  }
}

/** Prepares the swap asked for, naming the key that will sign it. */
function createSwap(pp: PoolParty, request: AtomicSwapRequest, keyFingerprint: string) {
  const { slippageBps, ...pair } = request;
  const slippageTolerance = slippageBps / 10_000;
  return withAtomicSwaps(pp).atomicSwaps.create({ ...pair, slippageTolerance, keyFingerprint });
}

/**
 * Where a swap whose execution threw stands now: ended (the signature came too late, say), still
 * settling (an answer was lost: followed until it ends), or not signed after all (let go, so its
 * pool holdings are freed); null when it did not end.
 */
async function afterRefusal(swap: AtomicSwapObject): Promise<AtomicSwap | null> {
  const now = await swap.refresh().catch(() => null);
  if (now?.status === 'executing') return swap.wait().catch(() => null);
  if (now !== null && now.status !== 'prepared') return now;
  void swap.cancel().catch(() => undefined);
  return null;
}

function useAtomicSwap(props: AtomicSwapReviewProps) {
  const { pp, session, wallet } = useServices();
  const [stage, setStage] = useState<Stage>({ kind: 'working', says: 'Preparing the swap…' });
  const mounted = useRef(true);
  const unsigned = useRef<AtomicSwapObject | null>(null);
  const show = (next: Stage) => {
    unsigned.current = next.kind === 'review' ? next.swap : null;
    if (mounted.current) setStage(next);
  };
  const ended = (swap: AtomicSwap) => {
    props.onEnded();
    // The user left the card meanwhile: the end is told as a toast, wherever they are.
    if (!mounted.current) announceSwapEnd(toastOf(swap));
    show({ kind: 'ended', swap });
  };

  const prepare = async () => {
    const signer = await wallet?.hashSigner?.();
    if (pp === null || signer === undefined) return;
    try {
      show({ kind: 'working', says: 'Confirm in your wallet: signing in…' });
      await session.token();
      show({ kind: 'working', says: 'Preparing the swap…' });
      const swap = await createSwap(pp, props.request, signer.fingerprint);
      show(await checked(swap, performance.now(), false));
    } catch (caught) {
      if (errorCode(caught) === 'atomic_swaps_unavailable') props.onDepositOnly();
      else show({ kind: 'refused', message: describeError(caught) });
    }
  };

  const sign = async (review: Review) => {
    const signer = await wallet?.hashSigner?.();
    if (signer === undefined) return;
    show({ kind: 'working', says: 'Signing, then settling both legs…' });
    try {
      const answer = await review.swap.execute(signer);
      if (answer.status === 'prepared') show(await checked(review.swap, performance.now(), true));
      else ended(answer);
    } catch (caught) {
      const now = await afterRefusal(review.swap);
      if (now !== null) ended(now);
      else show({ kind: 'refused', message: describeError(caught) });
    }
  };

  /** Back to the card, the focus on its amount field, as the review it replaced is gone. */
  const close = () => {
    props.onClose();
    setTimeout(() => document.querySelector<HTMLElement>('.swap-card input.amount-big')?.focus());
  };

  const cancel = async (swap: AtomicSwapObject) => {
    show({ kind: 'working', says: 'Cancelling…' });
    // Unsigned, it moves nothing either way: a cancel that fails leaves it to expire.
    await swap.cancel().catch(() => undefined);
    close();
  };

  useEffect(() => {
    void prepare();
    return () => {
      mounted.current = false;
      // Left unsigned: nothing will sign it, so the pool's holdings are freed now.
      void unsigned.current?.cancel().catch(() => undefined);
    };
  }, []);
  return { stage, prepare, sign, cancel, close };
}

function toastOf(swap: AtomicSwap) {
  const { input, output } = swap;
  const text = toastText(atomicStateTitle(swap.status), input.amount, input.token, output.token);
  return { swapId: swap.atomicSwapId, state: swap.status, text };
}

export function AtomicSwapReview(props: AtomicSwapReviewProps) {
  const { stage, prepare, sign, cancel, close } = useAtomicSwap(props);
  return (
    <section aria-labelledby="atomic-heading" data-testid="atomic-swap" data-stage={stage.kind}>
      <h2 id="atomic-heading">{stage.kind === 'ended' ? 'Atomic swap' : 'Check and sign'}</h2>
      {stage.kind === 'working' && (
        <p role="status" data-testid="atomic-working">
          {stage.says}
        </p>
      )}
      {stage.kind === 'review' && (
        <ReviewForm
          review={stage}
          slippageBps={props.request.slippageBps}
          onSign={() => void sign(stage)}
          onCancel={() => void cancel(stage.swap)}
          onPrepare={() => void prepare()}
          onClose={close}
        />
      )}
      {stage.kind === 'refused' && (
        <>
          <p role="alert" class="error" data-testid="atomic-refused">
            {stage.message}
          </p>
          <EndActions onPrepare={() => void prepare()} label="Try again" onClose={close} />
        </>
      )}
      {stage.kind === 'ended' && (
        <Ended swap={stage.swap} onPrepare={() => void prepare()} onClose={close} />
      )}
    </section>
  );
}

function Ended(props: { swap: AtomicSwap; onPrepare: () => void; onClose: () => void }) {
  const { next } = atomicOutcome(props.swap);
  return (
    <>
      <AtomicSwapOutcome swap={props.swap} />
      <EndActions
        onPrepare={next === null ? null : props.onPrepare}
        label={next?.label ?? ''}
        onClose={props.onClose}
      />
    </>
  );
}

function EndActions(props: { onPrepare: (() => void) | null; label: string; onClose: () => void }) {
  return (
    <p class="actions">
      {props.onPrepare && (
        <button type="button" class="primary" onClick={props.onPrepare}>
          {props.label}
        </button>
      )}
      <button type="button" onClick={props.onClose}>
        Back to the swap
      </button>
    </p>
  );
}

/** Re-draws every second while shown, for the countdown. */
function useSecondTicks(): number {
  const [now, setNow] = useState(() => performance.now());
  useEffect(() => {
    const tick = setInterval(() => setNow(performance.now()), 1000);
    return () => clearInterval(tick);
  }, []);
  return now;
}

/** Both legs and the time left; the one button signs (Enter, as it has the focus). */
function ReviewForm(props: {
  review: Review;
  slippageBps: number;
  onSign: () => void;
  onCancel: () => void;
  /** The window ended unsigned: prepare a new swap, or go back. */
  onPrepare: () => void;
  onClose: () => void;
}) {
  const { review } = props;
  const { input, output } = review.legs;
  const left = timeLeft(review.deadlineMs, useSecondTicks());
  const signButton = useRef<HTMLButtonElement>(null);
  const hash = review.swap.data.preparedTransactionHash;
  useEffect(() => signButton.current?.focus(), [hash]);
  if (left.seconds === 0) {
    const expired = { ...review.swap.data, status: 'expired' as const };
    return <Ended swap={expired} onPrepare={props.onPrepare} onClose={props.onClose} />;
  }
  const lines = legLines(
    {
      input: { amount: input.amount, token: input.instrument.id },
      output: { amount: output.amount, token: output.instrument.id },
    },
    review.swap.data.quotedOutput,
    props.slippageBps,
  );
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        props.onSign();
      }}
    >
      {review.again && (
        <p class="warning" data-testid="atomic-again">
          An input of yours was spent since the swap was prepared, so it was prepared again from
          your holdings now: check the new transaction and sign it.
        </p>
      )}
      <ul class="plain-list" data-testid="atomic-legs">
        <li data-testid="atomic-send">{lines.send}</li>
        <li>
          <span data-testid="atomic-receive">{lines.receive}</span>
          <span class="hint"> {lines.receiveDetail}</span>
        </li>
      </ul>
      <p data-testid="atomic-expiry">
        Sign within <strong>{left.text}</strong>: after that the ledger refuses the transaction and
        nothing moves.
      </p>
      <p class="hint">
        The transaction was read before signing: it holds these two transfers only.
      </p>
      <p class="actions">
        <button type="submit" class="primary" ref={signButton} data-testid="atomic-sign">
          Sign and swap
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </p>
    </form>
  );
}
