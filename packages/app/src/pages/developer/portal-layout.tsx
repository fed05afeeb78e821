/**
 * The frame of the signed-in portal pages: the portal's own navigation, who is signed in, sign
 * out, and the gate that sends a visitor without a session to `/developer` to sign in.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { describeError } from '../../describe-error.js';
import { usePageTitle } from '../../page-title.js';
import { useServices } from '../../services.js';
import { type PortalState, signOut, usePortal } from './portal-session.js';
import './portal.css';

const SECTIONS = [
  { href: '/developer/keys', label: 'API keys' },
  { href: '/developer/webhooks', label: 'Webhooks' },
  { href: '/developer/earnings', label: 'Earnings' },
  { href: '/developer/analytics', label: 'Analytics' },
] as const;

export function PortalNav(props: { state: PortalState }) {
  const { url } = useLocation();
  const { config } = useServices();
  const { portal } = usePortal(config.environment);
  const [error, setError] = useState<string | null>(null);
  const path = url.split('?')[0];
  return (
    <div class="portal-bar">
      <nav aria-label="Developer portal">
        <ul>
          <li>
            <a href="/developer" aria-current={path === '/developer' ? 'page' : undefined}>
              Overview
            </a>
          </li>
          {SECTIONS.map((section) => (
            <li key={section.href}>
              <a href={section.href} aria-current={path === section.href ? 'page' : undefined}>
                {section.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {props.state.kind === 'signed-in' && (
        <div class="portal-who">
          <span class="muted">Signed in as</span>{' '}
          <span class="party" data-testid="developer-party">
            {props.state.partyId}
          </span>{' '}
          <button
            type="button"
            onClick={() => {
              setError(null);
              signOut(portal).catch((caught: unknown) => setError(describeError(caught)));
            }}
          >
            Sign out
          </button>
          {error !== null && (
            <p class="error" role="alert">
              {error}
            </p>
          )}
        </div>
      )}
    </div>
  );
}

/** A portal page: its heading, the portal navigation, and its content once signed in. */
export function PortalPage(props: {
  title: string;
  intro: ComponentChildren;
  children: (partyId: string) => ComponentChildren;
}) {
  const { config } = useServices();
  const { state } = usePortal(config.environment);
  usePageTitle(props.title);
  return (
    <section class="portal" aria-labelledby="portal-heading">
      <h1 id="portal-heading">{props.title}</h1>
      <PortalNav state={state} />
      <p class="portal-intro">{props.intro}</p>
      {state.kind === 'checking' && <p role="status">Checking your developer session…</p>}
      {state.kind === 'signed-out' && (
        <p class="warning" role="status">
          You are not signed in. <a href="/developer">Sign in with your wallet</a> to see this page.
        </p>
      )}
      {state.kind === 'signed-in' && props.children(state.partyId)}
    </section>
  );
}
