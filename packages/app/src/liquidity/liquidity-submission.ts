/**
 * One liquidity request sent from a form: busy while it runs (so a second Enter does not send it
 * twice), its refusal described in the provider's words, and the answer handed on when it comes.
 */
import { useState } from 'preact/hooks';
import { describeLiquidityError } from './liquidity-errors.js';

export interface LiquiditySubmission {
  readonly busy: boolean;
  readonly error: string | null;
  /** Sends the request unless one is already on its way. */
  submit(): void;
}

/** `send` answers null when the form has nothing to send yet. */
export function useLiquiditySubmission<T>(
  send: () => Promise<T> | null,
  onAnswer: (answer: T) => void,
): LiquiditySubmission {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      // Built inside the try: a request that cannot be built is described like a refusal.
      const sending = send();
      if (sending !== null) onAnswer(await sending);
    } catch (caught) {
      setError(describeLiquidityError(caught));
    } finally {
      setBusy(false);
    }
  };
  return {
    busy,
    error,
    submit: () => {
      if (!busy) void run();
    },
  };
}
