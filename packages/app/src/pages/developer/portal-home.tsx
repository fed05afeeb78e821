/**
 * `/developer`: where to start building on PoolParty, and the developer portal's sign-in. The
 * connected wallet (the app's own wallet panel: the built-in devnet wallet or a Canton wallet)
 * signs the service's login challenge (docs/spec/auth.md#developer-portal-sessions); the session is
 * an HttpOnly cookie.
 */
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { WalletPanel } from '../../components/wallet-panel.js';
import { describeError } from '../../describe-error.js';
import { usePageTitle } from '../../page-title.js';
import { useServices } from '../../services.js';
import { DeveloperPage } from '../developer.js';
import { PortalNav } from './portal-layout.js';
import { signInWith, usePortal } from './portal-session.js';

export function PortalHomePage() {
  usePageTitle('Developers');
  const { config } = useServices();
  const { state } = usePortal(config.environment);
  return (
    <>
      <DeveloperPage />
      <section class="portal" aria-labelledby="portal-signin-heading">
        <h2 id="portal-signin-heading">Developer portal</h2>
        <PortalNav state={state} />
        <p class="portal-intro">
          Sign in with your Canton wallet to create API keys, follow your app's swaps and collect
          your earnings: half of the platform fee of every swap made with your keys.
        </p>
        {state.kind === 'checking' && <p role="status">Checking your developer session…</p>}
        {state.kind === 'signed-in' && (
          <p class="success" role="status">
            You are signed in. Go to <a href="/developer/keys">your API keys</a>,{' '}
            <a href="/developer/earnings">earnings</a> or{' '}
            <a href="/developer/analytics">analytics</a>.
          </p>
        )}
        {state.kind === 'signed-out' && (
          <div class="grid">
            <WalletPanel />
            <SignIn />
          </div>
        )}
      </section>
    </>
  );
}

/** Signing in with the connected wallet, then on to the keys; `busy` while the wallet signs. */
function useSignIn() {
  const { config, wallet } = useServices();
  const { portal } = usePortal(config.environment);
  const { route } = useLocation();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const signIn = async () => {
    if (wallet === null) return;
    setBusy(true);
    setError(null);
    try {
      await signInWith(portal, wallet);
      route('/developer/keys');
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setBusy(false);
    }
  };

  return { wallet, busy, error, signIn };
}

function SignIn() {
  const { wallet, busy, error, signIn } = useSignIn();
  return (
    <section class="card" aria-labelledby="signin-heading">
      <h3 id="signin-heading">Sign in</h3>
      {wallet === null ? (
        <p>Connect a wallet first: its party becomes your developer account.</p>
      ) : (
        <>
          <p>
            Your wallet signs a one-time challenge for <span class="party">{wallet.partyId}</span>
            {'; nothing is sent from your party.'}
          </p>
          <button type="button" class="primary" disabled={busy} onClick={() => void signIn()}>
            Sign in with this wallet
          </button>
        </>
      )}
      {busy && <p role="status">Waiting for your wallet's signature…</p>}
      {error !== null && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
