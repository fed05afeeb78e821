/**
 * `/developer/webhooks`: register endpoints the service POSTs events to (the signing secret shown
 * once, with a copy button), change what each is sent, pause or enable it, rotate its secret with
 * an overlap, send it a test event, read its deliveries and resend one, delete it (confirmed).
 * The endpoints and their actions are webhook-endpoints.tsx; the state and calls webhook-actions.ts.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { formatTime } from '../../format.js';
import { useServices } from '../../services.js';
import { ActionOutcome } from './action-outcome.js';
import { PortalPage } from './portal-layout.js';
import { usePortal } from './portal-session.js';
import { type RevealedSecret, useWebhooks } from './webhook-actions.js';
import { EndpointList } from './webhook-endpoints.js';
import { EndpointForm } from './webhook-forms.js';

export function WebhooksPage() {
  return (
    <PortalPage
      title="Webhooks"
      intro="The service POSTs an event to your endpoint when a swap, liquidity intent or withdrawal of yours changes state, a collection is paid or a key revoked, signed with the endpoint's secret (verify it with webhooks.verify of @poolparty/sdk/webhooks)."
    >
      {() => <Webhooks />}
    </PortalPage>
  );
}

function Webhooks() {
  const { config } = useServices();
  const { portal } = usePortal(config.environment);
  const state = useWebhooks(portal);
  // A new form after each endpoint made, so its fields start empty.
  const [formKey, setFormKey] = useState(0);
  return (
    <>
      <section class="card" aria-labelledby="add-endpoint-heading">
        <h2 id="add-endpoint-heading">Add an endpoint</h2>
        <EndpointForm
          key={formKey}
          busy={state.busy}
          onSubmit={(fields) => void state.create(fields).then(() => setFormKey((key) => key + 1))}
        />
      </section>
      {state.revealed !== null && (
        <RevealedSecretCard revealed={state.revealed} onDone={() => state.setRevealed(null)} />
      )}
      <ActionOutcome notice={state.notice} error={state.error} />
      <section aria-labelledby="endpoints-heading">
        <h2 id="endpoints-heading">Your endpoints</h2>
        {state.endpoints === null && <p role="status">Loading your endpoints…</p>}
        {state.endpoints !== null && state.endpoints.length === 0 && (
          <p>No endpoints yet: add one above.</p>
        )}
        {state.endpoints !== null && state.endpoints.length > 0 && (
          <EndpointList state={state} endpoints={state.endpoints} />
        )}
      </section>
    </>
  );
}

function RevealedSecretCard(props: { revealed: RevealedSecret; onDone: () => void }) {
  const { endpoint, secret, previousSecretExpiresAt } = props.revealed;
  const [copied, setCopied] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  // The secret appears above the list: reading and keyboard go there, so it is not missed.
  useEffect(() => heading.current?.focus(), [secret]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser did not allow copying: select the secret and copy it yourself.');
    }
  };
  return (
    <section class="card revealed" aria-labelledby="secret-heading" data-testid="revealed-secret">
      <h2 id="secret-heading" ref={heading} tabIndex={-1}>
        {previousSecretExpiresAt === null ? 'The signing secret' : 'The new signing secret'} of{' '}
        {endpoint.url}
      </h2>
      <p>
        <strong>Copy it now: it is shown only this once.</strong> Your server verifies each request
        with it.
      </p>
      <p class="key-line">
        <code data-testid="new-secret">{secret}</code>
        <button type="button" onClick={() => void copy()}>
          Copy secret
        </button>
      </p>
      {copied !== null && <p role="status">{copied}</p>}
      {previousSecretExpiresAt !== null && (
        <p class="warning" data-testid="secret-overlap">
          The old secret also signs every request until {formatTime(previousSecretExpiresAt)}: give
          your server both until then.
        </p>
      )}
      <button type="button" onClick={props.onDone}>
        I have stored the secret
      </button>
    </section>
  );
}
