/**
 * The developer portal's session in this browser: one `DeveloperPortal` client for the service
 * the pages come from, and whether (and as whom) it is signed in. The session itself is the
 * HttpOnly cookie the sign-in sets, so it survives a reload without the page ever holding it; on
 * load the pages ask the service who is signed in (`GET /api/sdk/session`, which answers "signed
 * out" with 200, so a visitor who never signed in sees no failed request).
 */
import { AuthenticationError, DeveloperPortal, type Environment } from '@poolparty/sdk';
import { useEffect, useState } from 'preact/hooks';
import { portalSessionState } from '../../service-reads.js';
import type { Wallet } from '../../wallets/wallet.js';

export type PortalState =
  | { readonly kind: 'checking' }
  | { readonly kind: 'signed-out' }
  | { readonly kind: 'signed-in'; readonly partyId: string };

let client: DeveloperPortal | null = null;
let state: PortalState = { kind: 'checking' };
let probe: Promise<void> | null = null;
const listeners = new Set<(next: PortalState) => void>();

function publish(next: PortalState): void {
  state = next;
  for (const listener of listeners) listener(next);
}

/** The portal client for this origin. */
function portalClient(environment: Environment): DeveloperPortal {
  client ??= new DeveloperPortal({ environment, baseUrl: window.location.origin });
  return client;
}

/** Asks the service once whether this browser's cookie signs a developer in. */
function checkSession(): Promise<void> {
  probe ??= portalSessionState().then(
    (answer) =>
      publish(
        answer.signedIn && answer.partyId !== null
          ? { kind: 'signed-in', partyId: answer.partyId }
          : { kind: 'signed-out' },
      ),
    () => {
      // The service could not say: asked again on the next page.
      probe = null;
      publish({ kind: 'signed-out' });
    },
  );
  return probe;
}

/** The portal client and the session's state, kept current across the portal's pages. */
export function usePortal(environment: Environment): {
  readonly portal: DeveloperPortal;
  readonly state: PortalState;
} {
  const portal = portalClient(environment);
  const [current, setCurrent] = useState(state);
  useEffect(() => {
    listeners.add(setCurrent);
    setCurrent(state);
    if (state.kind === 'checking') void checkSession();
    return () => {
      listeners.delete(setCurrent);
    };
  }, [portal]);
  return { portal, state: current };
}

/** Signs the connected wallet's party in: the wallet signs the service's login challenge. */
export async function signInWith(portal: DeveloperPortal, wallet: Wallet): Promise<string> {
  const partyId = wallet.partyId;
  if (partyId === null) throw new Error('Connect a wallet first.');
  const challenge = await portal.requestChallenge(partyId);
  const signed = await wallet.signMessage(challenge.message);
  const session = await portal.signIn({
    partyId,
    nonce: challenge.nonce,
    signature: signed.signature,
    publicKey: signed.publicKey,
  });
  probe = Promise.resolve();
  publish({ kind: 'signed-in', partyId: session.partyId });
  return session.partyId;
}

export async function signOut(portal: DeveloperPortal): Promise<void> {
  try {
    await portal.signOut();
  } finally {
    probe = Promise.resolve();
    publish({ kind: 'signed-out' });
  }
}

/** A portal call refused for want of a session: the pages send the user to sign in again. */
export function sessionEnded(error: unknown): boolean {
  return error instanceof AuthenticationError;
}

export function markSignedOut(): void {
  probe = Promise.resolve();
  publish({ kind: 'signed-out' });
}
