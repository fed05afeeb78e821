/**
 * The developer's webhook endpoints (webhooks.tsx), one card each: URL, events, state, and its
 * actions — edit, pause or enable, rotate the secret, send a test event, the delivery log, and
 * delete (confirmed first, the safe choice focused). One endpoint's form or log is open at a time.
 */
import type { WebhookEndpoint } from '@poolparty/sdk/webhooks';
import { useEffect, useRef } from 'preact/hooks';
import { formatTime } from '../../format.js';
import type { WebhooksState } from './webhook-actions.js';
import { DeliveriesLog } from './webhook-deliveries.js';
import { describeEvents, endpointState } from './webhook-form.js';
import { EndpointForm, RotateForm } from './webhook-forms.js';

export function EndpointList(props: {
  state: WebhooksState;
  endpoints: readonly WebhookEndpoint[];
}) {
  return (
    <ul class="webhook-list" data-testid="endpoints">
      {props.endpoints.map((endpoint) => (
        <li key={endpoint.id} class="card" data-endpoint={endpoint.id}>
          <EndpointCard state={props.state} endpoint={endpoint} />
        </li>
      ))}
    </ul>
  );
}

function EndpointCard(props: { state: WebhooksState; endpoint: WebhookEndpoint }) {
  const { state, endpoint } = props;
  const open = state.focus?.endpointId === endpoint.id ? state.focus.kind : null;
  const close = () => state.setFocus(null);
  return (
    <article aria-label={`Endpoint ${endpoint.url}`}>
      <h3 class="webhook-url">
        <code>{endpoint.url}</code>
      </h3>
      <dl class="webhook-facts">
        <dt>Events</dt>
        <dd>{describeEvents(endpoint.events)}</dd>
        <dt>State</dt>
        <dd data-testid="endpoint-state">{endpointState(endpoint)}</dd>
        {endpoint.failingSince !== null && (
          <>
            <dt>Failing since</dt>
            <dd>{formatTime(endpoint.failingSince)}</dd>
          </>
        )}
        {endpoint.description !== '' && (
          <>
            <dt>Description</dt>
            <dd>{endpoint.description}</dd>
          </>
        )}
        <dt>Secret</dt>
        <dd>
          {endpoint.secretRotatedAt === null
            ? 'never rotated'
            : `rotated ${formatTime(endpoint.secretRotatedAt)}`}
        </dd>
      </dl>
      {open === 'edit' && (
        <EndpointForm
          endpoint={endpoint}
          busy={state.busy}
          onCancel={close}
          onSubmit={(fields) => void state.update(endpoint, fields, `${fields.url} is saved.`)}
        />
      )}
      {open === 'rotate' && (
        <RotateForm
          endpoint={endpoint}
          busy={state.busy}
          onCancel={close}
          onRotate={(overlap) => void state.rotate(endpoint, overlap)}
        />
      )}
      {open !== 'edit' && open !== 'rotate' && (
        <EndpointButtons state={state} endpoint={endpoint} confirming={open === 'delete'} />
      )}
      {open === 'deliveries' && (
        <DeliveriesLog portal={state.portal} endpointId={endpoint.id} refresh={state.tests} />
      )}
    </article>
  );
}

function EndpointButtons(props: {
  state: WebhooksState;
  endpoint: WebhookEndpoint;
  confirming: boolean;
}) {
  const { state, endpoint } = props;
  const { busy } = state;
  const to = (kind: 'edit' | 'rotate' | 'delete' | 'deliveries') => () =>
    state.setFocus({ kind, endpointId: endpoint.id });
  const label = endpoint.url;
  if (props.confirming) {
    return (
      <fieldset class="key-actions confirm">
        <legend>Delete this endpoint and its delivery log?</legend>
        <button
          type="button"
          class="danger"
          disabled={busy}
          aria-label={`Delete now: ${label}`}
          onClick={() => void state.remove(endpoint)}
        >
          Delete now
        </button>
        <KeepButton label={`Keep ${label}`} onClick={() => state.setFocus(null)} />
      </fieldset>
    );
  }
  const toggle = endpoint.enabled
    ? {
        text: 'Pause',
        params: { enabled: false },
        said: `${label} is paused: nothing is sent to it.`,
      }
    : { text: 'Enable', params: { enabled: true }, said: `${label} is enabled again.` };
  return (
    <div class="key-actions">
      <button type="button" disabled={busy} aria-label={`Edit ${label}`} onClick={to('edit')}>
        Edit
      </button>
      <button
        type="button"
        disabled={busy}
        aria-label={`${toggle.text} ${label}`}
        onClick={() => void state.update(endpoint, toggle.params, toggle.said)}
      >
        {toggle.text}
      </button>
      <button
        type="button"
        disabled={busy}
        aria-label={`Rotate secret of ${label}`}
        onClick={to('rotate')}
      >
        Rotate secret
      </button>
      <button
        type="button"
        disabled={busy}
        aria-label={`Send test event to ${label}`}
        onClick={() => void state.test(endpoint)}
      >
        Send test event
      </button>
      <button
        type="button"
        disabled={busy}
        aria-label={`Deliveries of ${label}`}
        onClick={to('deliveries')}
      >
        Deliveries
      </button>
      <button type="button" disabled={busy} aria-label={`Delete ${label}`} onClick={to('delete')}>
        Delete
      </button>
    </div>
  );
}

/** The confirmation's safe choice, focused when it appears, so Enter does not delete by accident. */
function KeepButton(props: { label: string; onClick: () => void }) {
  const ref = useRef<HTMLButtonElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <button ref={ref} type="button" aria-label={props.label} onClick={props.onClick}>
      Keep
    </button>
  );
}
