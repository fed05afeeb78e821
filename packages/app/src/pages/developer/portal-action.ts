/**
 * A portal call under way and its error, shared by the pages that change something (keys,
 * webhooks): one call at a time, and a call refused for want of a session signs the page out.
 */
import type { DeveloperPortal } from '@poolparty/sdk';
import { useCallback, useState } from 'preact/hooks';
import { describeError } from '../../describe-error.js';
import { markSignedOut, sessionEnded } from './portal-session.js';

/** A portal call under way (`busy`), and its error; a call refused for want of a session signs out. */
export function usePortalAction<Portal extends DeveloperPortal>(portal: Portal) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const fail = useCallback((caught: unknown) => {
    if (sessionEnded(caught)) markSignedOut();
    else setError(describeError(caught));
  }, []);

  const run = useCallback(
    async (action: (p: Portal) => Promise<void>) => {
      setBusy(true);
      setError(null);
      try {
        await action(portal);
      } catch (caught) {
        fail(caught);
      } finally {
        setBusy(false);
      }
    },
    [portal, fail],
  );

  return { busy, error, fail, run };
}
