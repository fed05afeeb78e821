/**
 * `/developer/keys`: create a key (the full key shown once, with a copy button), rotate one (the
 * old key's grace period shown), revoke one; each key with its name, prefix, creation, last use
 * and request count.
 */
import type { ApiKeyCreated, ApiKeyListEntry, DeveloperPortal } from '@poolparty/sdk';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import { describeError } from '../../describe-error.js';
import { formatTime } from '../../format.js';
import { useServices } from '../../services.js';
import { PortalPage } from './portal-layout.js';
import { markSignedOut, sessionEnded, usePortal } from './portal-session.js';
import { ScrollBox } from './scroll-box.js';

/** A key just made: shown in full this once. `replaced` is the key a rotation replaced. */
interface Revealed {
  readonly created: ApiKeyCreated;
  readonly replaced: ApiKeyListEntry | null;
}

export function KeysPage() {
  return (
    <PortalPage
      title="API keys"
      intro="Your app sends a key as X-API-Key with every call. The full key is shown once, when it is made."
    >
      {() => <Keys />}
    </PortalPage>
  );
}

function keyStatus(key: ApiKeyListEntry, now: number): string {
  if (key.revokedAt === null) return 'Active';
  const ends = Date.parse(key.revokedAt);
  return ends > now ? `Rotated: works until ${formatTime(key.revokedAt)}` : 'Revoked';
}

function Keys() {
  const { config } = useServices();
  const { portal } = usePortal(config.environment);
  const nameId = useId();
  const [keys, setKeys] = useState<ApiKeyListEntry[] | null>(null);
  const [name, setName] = useState('');
  const [revealed, setRevealed] = useState<Revealed | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const fail = useCallback((caught: unknown) => {
    if (sessionEnded(caught)) markSignedOut();
    else setError(describeError(caught));
  }, []);

  const run = useCallback(
    async (action: (p: DeveloperPortal) => Promise<void>) => {
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

  // The first listing does not hold the buttons: a key can be made while it loads (a disabled
  // submit button would silently swallow Enter in the name field). A listing an action already
  // replaced is newer than this one, so this one only fills an empty table.
  useEffect(() => {
    portal.keys.list().then((listed) => setKeys((shown) => shown ?? listed.keys), fail);
  }, [portal, fail]);

  const create = () =>
    run(async (p) => {
      const created = await p.keys.create(name.trim() === '' ? {} : { name: name.trim() });
      setRevealed({ created, replaced: null });
      setNotice(null);
      setName('');
      setKeys((await p.keys.list()).keys);
    });

  const rotate = (key: ApiKeyListEntry) =>
    run(async (p) => {
      const created = await p.keys.rotate(key.keyId);
      const listed = (await p.keys.list()).keys;
      setRevealed({ created, replaced: listed.find((k) => k.keyId === key.keyId) ?? null });
      setNotice(null);
      setKeys(listed);
    });

  const revoke = (key: ApiKeyListEntry) =>
    run(async (p) => {
      await p.keys.revoke(key.keyId);
      setConfirming(null);
      setNotice(`Key ${key.prefix}… is revoked: requests with it are refused from now on.`);
      setKeys((await p.keys.list()).keys);
    });

  const now = Date.now();
  return (
    <>
      <section class="card" aria-labelledby="create-key-heading">
        <h2 id="create-key-heading">Create a key</h2>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void create();
          }}
        >
          <label for={nameId}>Key name (optional)</label>
          <div class="inline-form">
            <input
              id={nameId}
              value={name}
              maxLength={64}
              autocomplete="off"
              placeholder="e.g. web shop"
              onInput={(event) => setName(event.currentTarget.value)}
            />
            <button type="submit" class="primary" disabled={busy}>
              Create key
            </button>
          </div>
        </form>
      </section>

      {revealed !== null && <RevealedKey revealed={revealed} onDone={() => setRevealed(null)} />}
      {notice !== null && (
        <p class="success" role="status">
          {notice}
        </p>
      )}
      {error !== null && (
        <p class="error" role="alert">
          {error}
        </p>
      )}

      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading">Your keys</h2>
        {keys === null && <p role="status">Loading your keys…</p>}
        {keys !== null && keys.length === 0 && <p>No keys yet: create one above.</p>}
        {keys !== null && keys.length > 0 && (
          <ScrollBox label="Your API keys">
            <table class="stack-on-phone" data-testid="keys">
              <caption class="visually-hidden">Your API keys</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Prefix</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Requests</th>
                  <th scope="col">Status</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {keys.map((key) => {
                  const label = key.name ?? `key ${key.prefix}`;
                  const active = key.revokedAt === null;
                  return (
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
                        {keyStatus(key, now)}
                      </td>
                      <td class="key-actions">
                        {active && confirming !== key.keyId && (
                          <>
                            <button
                              type="button"
                              disabled={busy}
                              aria-label={`Rotate ${label}`}
                              onClick={() => void rotate(key)}
                            >
                              Rotate
                            </button>
                            <button
                              type="button"
                              disabled={busy}
                              aria-label={`Revoke ${label}`}
                              onClick={() => setConfirming(key.keyId)}
                            >
                              Revoke
                            </button>
                          </>
                        )}
                        {active && confirming === key.keyId && (
                          <>
                            <button
                              type="button"
                              class="danger"
                              disabled={busy}
                              aria-label={`Revoke ${label} now`}
                              onClick={() => void revoke(key)}
                            >
                              Revoke now
                            </button>
                            <FocusedButton
                              label={`Keep ${label}`}
                              onClick={() => setConfirming(null)}
                            >
                              Keep
                            </FocusedButton>
                          </>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </ScrollBox>
        )}
      </section>
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

function RevealedKey(props: { revealed: Revealed; onDone: () => void }) {
  const { created, replaced } = props.revealed;
  const [copied, setCopied] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  // The key appears above the form: reading and keyboard go there, so it is not missed.
  useEffect(() => heading.current?.focus(), [created.keyId]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser did not allow copying: select the key and copy it yourself.');
    }
  };
  return (
    <section class="card revealed" aria-labelledby="revealed-heading" data-testid="revealed-key">
      <h2 id="revealed-heading" ref={heading} tabIndex={-1}>
        {replaced === null ? 'Your new key' : `Rotated: the new key for ${replaced.prefix}…`}
      </h2>
      <p>
        <strong>Copy it now: it is shown only this once.</strong> The service keeps only its hash.
      </p>
      <p class="key-line">
        <code data-testid="new-key">{created.key}</code>
        <button type="button" onClick={() => void copy()}>
          Copy key
        </button>
      </p>
      {copied !== null && <p role="status">{copied}</p>}
      {replaced?.revokedAt != null && (
        <p class="warning" data-testid="grace-period">
          The old key {replaced.prefix}… keeps working until {formatTime(replaced.revokedAt)}, so
          your app can switch over; then it stops.
        </p>
      )}
      <button type="button" onClick={props.onDone}>
        I have stored the key
      </button>
    </section>
  );
}
