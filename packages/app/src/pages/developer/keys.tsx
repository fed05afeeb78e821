/**
 * `/developer/keys`: create a key (the full key shown once, with a copy button), rotate one (the
 * old key's grace period shown), revoke one; each key with its name, prefix, creation, last use
 * and request count (keys-table.tsx).
 */
import type { ApiKeyCreated, ApiKeyListEntry, DeveloperPortal } from '@poolparty/sdk';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { formatTime } from '../../format.js';
import { useServices } from '../../services.js';
import { ActionOutcome } from './action-outcome.js';
import { KeysTable } from './keys-table.js';
import { usePortalAction } from './portal-action.js';
import { PortalPage } from './portal-layout.js';
import { usePortal } from './portal-session.js';

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

function Keys() {
  const { config } = useServices();
  const { portal } = usePortal(config.environment);
  const keys = useKeys(portal);
  return (
    <>
      <CreateKeyForm
        name={keys.name}
        busy={keys.busy}
        onName={keys.setName}
        onCreate={() => void keys.create()}
      />

      {keys.revealed !== null && (
        <RevealedKey revealed={keys.revealed} onDone={() => keys.setRevealed(null)} />
      )}
      <ActionOutcome notice={keys.notice} error={keys.error} />

      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading">Your keys</h2>
        {keys.keys === null && <p role="status">Loading your keys…</p>}
        {keys.keys !== null && keys.keys.length === 0 && <p>No keys yet: create one above.</p>}
        {keys.keys !== null && keys.keys.length > 0 && (
          <KeysTable
            keys={keys.keys}
            busy={keys.busy}
            confirming={keys.confirming}
            onConfirm={keys.setConfirming}
            onRotate={(key) => void keys.rotate(key)}
            onRevoke={(key) => void keys.revoke(key)}
          />
        )}
      </section>
    </>
  );
}

/** The keys listed, the one just made, the revocation being confirmed, and the key actions. */
function useKeys(portal: DeveloperPortal) {
  const { busy, error, fail, run } = usePortalAction(portal);
  const [keys, setKeys] = useState<ApiKeyListEntry[] | null>(null);
  const [name, setName] = useState('');
  const [revealed, setRevealed] = useState<Revealed | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

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

  return {
    keys,
    name,
    setName,
    revealed,
    setRevealed,
    confirming,
    setConfirming,
    busy,
    notice,
    error,
    create,
    rotate,
    revoke,
  };
}

function CreateKeyForm(props: {
  name: string;
  busy: boolean;
  onName: (name: string) => void;
  onCreate: () => void;
}) {
  const nameId = useId();
  return (
    <section class="card" aria-labelledby="create-key-heading">
      <h2 id="create-key-heading">Create a key</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          props.onCreate();
        }}
      >
        <label for={nameId}>Key name (optional)</label>
        <div class="inline-form">
          <input
            id={nameId}
            value={props.name}
            maxLength={64}
            autocomplete="off"
            placeholder="e.g. web shop"
            onInput={(event) => props.onName(event.currentTarget.value)}
          />
          <button type="submit" class="primary" disabled={props.busy}>
            Create key
          </button>
        </div>
      </form>
    </section>
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
          {/* At the cap on working keys a rotation ends a grace period at once, maybe this one. */}
          {Date.parse(replaced.revokedAt) > Date.parse(created.createdAt) ? (
            <>
              The old key {replaced.prefix}… keeps working until {formatTime(replaced.revokedAt)},
              so your app can switch over; then it stops.
            </>
          ) : (
            <>
              The old key {replaced.prefix}… stopped at once: you hold as many working keys as a
              developer may, rotated ones included, so it had no grace period. Revoke a key before
              rotating to keep one.
            </>
          )}
        </p>
      )}
      <button type="button" onClick={props.onDone}>
        I have stored the key
      </button>
    </section>
  );
}
