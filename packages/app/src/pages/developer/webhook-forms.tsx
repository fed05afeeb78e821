/**
 * The webhooks page's forms (webhooks.tsx): an endpoint's URL, events and description, for a new
 * endpoint or a change to one; and a rotation's overlap.
 */
import type { WebhookEndpoint } from '@poolparty/sdk/webhooks';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import {
  formatEventPatterns,
  OVERLAP_CHOICES,
  OVERLAP_DEFAULT_SECONDS,
  parseEventPatterns,
} from './webhook-form.js';

/** What the endpoint form answers. */
export interface EndpointFields {
  readonly url: string;
  readonly events: string[];
  readonly description: string;
}

/** A new endpoint's form (no `endpoint`), or an endpoint's (its values filled in). */
export function EndpointForm(props: {
  endpoint?: WebhookEndpoint;
  busy: boolean;
  onSubmit: (fields: EndpointFields) => void;
  onCancel?: () => void;
}) {
  const { endpoint } = props;
  const ids = { url: useId(), events: useId(), description: useId(), hint: useId() };
  const [url, setUrl] = useState(endpoint?.url ?? '');
  const [events, setEvents] = useState(formatEventPatterns(endpoint?.events ?? []));
  const [description, setDescription] = useState(endpoint?.description ?? '');
  const first = useRef<HTMLInputElement>(null);
  // An edit form opens in place of the row's buttons: the keyboard goes to its first field.
  useEffect(() => {
    if (endpoint !== undefined) first.current?.focus();
  }, [endpoint]);
  const submit = (event: Event) => {
    event.preventDefault();
    props.onSubmit({ url: url.trim(), events: parseEventPatterns(events), description });
  };
  return (
    <form class="webhook-form" onSubmit={submit} data-testid="endpoint-form">
      <label for={ids.url}>Endpoint URL</label>
      <input
        id={ids.url}
        ref={first}
        type="url"
        required
        value={url}
        autocomplete="off"
        placeholder="https://shop.example/poolparty/webhooks"
        onInput={(event) => setUrl(event.currentTarget.value)}
      />
      <label for={ids.events}>Events (optional)</label>
      <input
        id={ids.events}
        value={events}
        autocomplete="off"
        aria-describedby={ids.hint}
        placeholder="e.g. swap.completed, liquidity_intent.*"
        onInput={(event) => setEvents(event.currentTarget.value)}
      />
      <p id={ids.hint} class="muted">
        Event types or kinds (swap.*, atomic_swap.*, liquidity_intent.*, liquidity_withdrawal.*,
        collection.*, api_key.*), separated by commas. Empty: every event.
      </p>
      <label for={ids.description}>Description (optional)</label>
      <input
        id={ids.description}
        value={description}
        maxLength={500}
        autocomplete="off"
        onInput={(event) => setDescription(event.currentTarget.value)}
      />
      <div class="form-buttons">
        <button type="submit" class="primary" disabled={props.busy}>
          {endpoint === undefined ? 'Add endpoint' : 'Save changes'}
        </button>
        {props.onCancel !== undefined && (
          <button type="button" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

/** A rotation's overlap, then Rotate or Cancel. */
export function RotateForm(props: {
  endpoint: WebhookEndpoint;
  busy: boolean;
  onRotate: (overlapSeconds: number) => void;
  onCancel: () => void;
}) {
  const id = useId();
  const [overlap, setOverlap] = useState<number>(OVERLAP_DEFAULT_SECONDS);
  const select = useRef<HTMLSelectElement>(null);
  useEffect(() => select.current?.focus(), []);
  return (
    <form
      class="webhook-form"
      data-testid="rotate-form"
      onSubmit={(event) => {
        event.preventDefault();
        props.onRotate(overlap);
      }}
    >
      <label for={id}>The old secret keeps signing for</label>
      <select
        id={id}
        ref={select}
        value={String(overlap)}
        onChange={(event) => setOverlap(Number(event.currentTarget.value))}
      >
        {OVERLAP_CHOICES.map((choice) => (
          <option key={choice.seconds} value={String(choice.seconds)}>
            {choice.label}
          </option>
        ))}
      </select>
      <div class="form-buttons">
        <button type="submit" class="danger" disabled={props.busy}>
          Rotate secret
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
