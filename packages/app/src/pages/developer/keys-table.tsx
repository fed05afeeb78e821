/**
 * The developer's API keys as a table (keys.tsx): name, prefix, creation, last use, request count
 * and status, and each active key's Rotate and Revoke, the revocation confirmed first.
 */
import type { ApiKeyListEntry } from '@poolparty/sdk';
import { useEffect, useRef } from 'preact/hooks';
import { ColumnHeads } from '../../components/column-heads.js';
import { formatTime } from '../../format.js';
import { keyStatus } from './key-status.js';
import { ScrollBox } from './scroll-box.js';

interface KeyActions {
  /** The key whose revocation is being confirmed. */
  readonly confirming: string | null;
  readonly busy: boolean;
  /** Asks to confirm revoking a key; null is "keep it". */
  onConfirm(keyId: string | null): void;
  onRotate(key: ApiKeyListEntry): void;
  onRevoke(key: ApiKeyListEntry): void;
}

export function KeysTable(props: KeyActions & { keys: readonly ApiKeyListEntry[] }) {
  const { keys, ...actions } = props;
  return (
    <ScrollBox label="Your API keys">
      <table class="stack-on-phone" data-testid="keys">
        <caption class="visually-hidden">Your API keys</caption>
        <ColumnHeads
          names={['Name', 'Prefix', 'Created', 'Last used', 'Requests', 'Status']}
          actions="Actions"
        />
        <tbody>
          {keys.map((key) => (
            <tr key={key.keyId} data-key={key.keyId}>
              <td data-label="Name">{key.name ?? <span class="muted">unnamed</span>}</td>
              <td data-label="Prefix">
                <code>{key.prefix}…</code>
              </td>
              <td data-label="Created">{formatTime(key.createdAt)}</td>
              <td data-label="Last used">
                {key.lastUsedAt === null ? 'never' : formatTime(key.lastUsedAt)}
              </td>
              <td data-label="Requests" data-testid="request-count">
                {key.requestCount}
              </td>
              <td data-label="Status" data-testid="key-status">
                {keyStatus(key)}
              </td>
              <td class="key-actions">
                <KeyButtons apiKey={key} actions={actions} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}

/**
 * An active key's Rotate and Revoke; once Revoke is asked, Revoke now and Keep (in a slot of their
 * own, so Keep is a new button that takes the focus).
 */
function KeyButtons(props: { apiKey: ApiKeyListEntry; actions: KeyActions }) {
  const { apiKey: key, actions } = props;
  const { busy } = actions;
  const label = key.name ?? `key ${key.prefix}`;
  const active = key.revokedAt === null;
  const confirming = actions.confirming === key.keyId;
  return (
    <>
      {active && !confirming && (
        <>
          <button
            type="button"
            disabled={busy}
            aria-label={`Rotate ${label}`}
            onClick={() => actions.onRotate(key)}
          >
            Rotate
          </button>
          <button
            type="button"
            disabled={busy}
            aria-label={`Revoke ${label}`}
            onClick={() => actions.onConfirm(key.keyId)}
          >
            Revoke
          </button>
        </>
      )}
      {active && confirming && (
        <>
          <button
            type="button"
            class="danger"
            disabled={busy}
            aria-label={`Revoke ${label} now`}
            onClick={() => actions.onRevoke(key)}
          >
            Revoke now
          </button>
          <FocusedButton label={`Keep ${label}`} onClick={() => actions.onConfirm(null)}>
            Keep
          </FocusedButton>
        </>
      )}
    </>
  );
}

/**
 * The confirmation's safe choice, focused when it appears: the button the keyboard was on is
 * gone, and Enter must not revoke by accident.
 */
function FocusedButton(props: { label: string; onClick: () => void; children: string }) {
  const ref = useRef<HTMLButtonElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <button ref={ref} type="button" aria-label={props.label} onClick={props.onClick}>
      {props.children}
    </button>
  );
}
