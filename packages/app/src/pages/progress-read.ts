/**
 * A swap's progress by its id, as anyone with the id reads it (`GET /v1/swaps/{id}/progress`,
 * a deposit-flow swap's or an atomic swap's): read again every few seconds until it ends, for the
 * swap's page.
 */
import { useEffect, useState } from 'preact/hooks';
import { describeError, errorCode } from '../describe-error.js';
import type { ServiceReads } from '../service-reads.js';
import { useServices } from '../services.js';

/** How often a swap still under way is read again. */
const REFRESH_MS = 2_000;
/** Reads at most: a day of them, longer than a swap waits for its deposit or signature. */
const READS_MAX = 43_200;

export function useProgressRead<T extends { readonly terminal: boolean }>(
  id: string,
  read: (reads: ServiceReads, id: string) => Promise<T>,
  enabled = true,
) {
  const { reads } = useServices();
  const [progress, setProgress] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!enabled || reads === null) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const again = async (count: number) => {
      try {
        const next = await read(reads, id);
        if (!live) return;
        setProgress(next);
        setError(null);
        if (!next.terminal && count < READS_MAX) {
          timer = setTimeout(() => again(count + 1), REFRESH_MS);
        }
      } catch (caught) {
        if (!live) return;
        setError(
          errorCode(caught) === 'not_found'
            ? 'There is no swap with this id.'
            : describeError(caught),
        );
      }
    };
    void again(1);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [reads, id, enabled]);
  return { progress, error };
}
