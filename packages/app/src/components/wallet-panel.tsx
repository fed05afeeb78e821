/**
 * Connecting a wallet: the built-in devnet wallet (create or import a party, faucet, export the
 * key) on a devnet service, or a Canton wallet through the dApp API (CIP-0103). Once connected,
 * the party and, for the devnet wallet, its balances.
 */
import type { Devnet, DevnetBalance } from '@poolparty/sdk/devnet';
import { useCallback, useEffect, useId, useState } from 'preact/hooks';
import { describeError } from '../describe-error.js';
import { formatAmount } from '../format.js';
import { useServices } from '../services.js';
import { issuerLabel } from '../token-choice.js';
import { BrowserDevnetWallet, parseKeyFile } from '../wallets/devnet-wallet.js';

/** What the faucet buttons mint: enough for a few swaps of any listed token. */
const FAUCET_AMOUNT = '1000';
/**
 * How long a Canton wallet has to answer the connection request. An installed wallet answers
 * within seconds (the user approves in it); with none, the dApp SDK would wait for ever.
 */
const CANTON_CONNECT_TIMEOUT_MS = 20_000;

export function WalletPanel(props: {
  balancesVersion?: number;
  /** Told when the faucet changed the party's balances, so the page reads them again. */
  onBalancesChanged?: () => void;
}) {
  const { wallet, walletRestoring, config } = useServices();
  return (
    <section class="card" aria-labelledby="wallet-heading">
      <h2 id="wallet-heading">Wallet</h2>
      {walletRestoring && <p role="status">Reconnecting your wallet…</p>}
      {!walletRestoring && wallet === null && <ConnectWallet />}
      {wallet !== null && (
        <>
          <p>
            Connected with {wallet.label}:{' '}
            <span class="party" data-testid="party-id">
              {wallet.partyId}
            </span>
          </p>
          {wallet instanceof BrowserDevnetWallet && (
            <DevnetWalletTools
              wallet={wallet}
              balancesVersion={props.balancesVersion ?? 0}
              onFunded={props.onBalancesChanged}
            />
          )}
          <DisconnectButton />
        </>
      )}
      {!config.devnet && wallet === null && (
        <p class="hint">This service runs on {config.environment}: use your Canton wallet.</p>
      )}
    </section>
  );
}

function DisconnectButton() {
  const { wallet, setWallet } = useServices();
  return (
    <>
      {wallet?.kind === 'devnet' && (
        <p class="hint">
          Forgetting removes the party's key from this browser: export it first to keep the party.
        </p>
      )}
      <button
        type="button"
        onClick={async () => {
          await wallet?.disconnect();
          setWallet(null);
        }}
      >
        {wallet?.kind === 'devnet' ? 'Forget this party' : 'Disconnect'}
      </button>
    </>
  );
}

/** A wallet action under way (`busy` says which) and the error of the last one. */
function useWalletAction() {
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const run = async (what: string, action: () => Promise<void>) => {
    setBusy(what);
    setError(null);
    try {
      await action();
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setBusy(null);
    }
  };

  return { busy, error, setError, run };
}

type WalletAction = ReturnType<typeof useWalletAction>;

function ConnectWallet() {
  const { devnet } = useServices();
  // The devnet forms have their own busy state: a Canton wallet that never answers cannot lock them.
  const walletAction = useWalletAction();
  const { busy, error } = walletAction;

  return (
    <>
      {devnet !== null && (
        <>
          <h3>Devnet wallet</h3>
          <p class="hint">
            A devnet party whose key stays in this browser. Export the key to keep the party.
          </p>
          <CreateDevnetParty devnet={devnet} walletAction={walletAction} />
          <ImportDevnetParty devnet={devnet} walletAction={walletAction} />
          {busy && <p role="status">{busy}</p>}
          {error && (
            <p role="alert" class="error">
              {error}
            </p>
          )}
        </>
      )}
      <CantonConnect />
    </>
  );
}

/** Connecting a Canton wallet: under way, answered, or given up on (timed out or cancelled). */
function CantonConnect() {
  const { setWallet, config } = useServices();
  const [attempt, setAttempt] = useState<AbortController | null>(null);
  const [error, setError] = useState<string | null>(null);

  const connect = async () => {
    const controller = new AbortController();
    setAttempt(controller);
    setError(null);
    try {
      const { connectCantonWallet } = await import('../wallets/canton-wallet.js');
      const connected = await connectCantonWallet(config.cantonRegistries, {
        signal: controller.signal,
        timeoutMs: CANTON_CONNECT_TIMEOUT_MS,
      });
      if (!controller.signal.aborted) setWallet(connected);
    } catch (caught) {
      // Cancelled by the user: nothing went wrong, the button is simply back.
      if (!controller.signal.aborted) setError(describeError(caught));
    } finally {
      setAttempt((current) => (current === controller ? null : current));
    }
  };

  return (
    <>
      <h3>Canton wallet</h3>
      <p class="hint">A wallet that speaks the Canton dApp API (CIP-0103).</p>
      {attempt === null ? (
        <button type="button" onClick={connect}>
          Connect a Canton wallet
        </button>
      ) : (
        <>
          <p role="status">
            Waiting for your Canton wallet to answer (up to {CANTON_CONNECT_TIMEOUT_MS / 1000}{' '}
            seconds)…
          </p>
          <button type="button" onClick={() => attempt.abort()}>
            Cancel connecting
          </button>
        </>
      )}
      {error && (
        <p role="alert" class="error" data-testid="canton-error">
          {error}
        </p>
      )}
    </>
  );
}

function CreateDevnetParty(props: { devnet: Devnet; walletAction: WalletAction }) {
  const { devnet, walletAction } = props;
  const { setWallet } = useServices();
  const nameId = useId();
  const preapprovalId = useId();
  const [name, setName] = useState('');
  const [preapproval, setPreapproval] = useState(true);
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void walletAction.run('Creating your party…', async () => {
          setWallet(await BrowserDevnetWallet.create(devnet, { name, preapproval }));
        });
      }}
    >
      <label for={nameId}>Party name</label>
      <input
        id={nameId}
        value={name}
        onInput={(event) => setName(event.currentTarget.value)}
        placeholder="e.g. alice"
        autocomplete="off"
      />
      <p class="checkbox">
        <input
          id={preapprovalId}
          type="checkbox"
          checked={preapproval}
          onChange={(event) => setPreapproval(event.currentTarget.checked)}
        />
        <label for={preapprovalId}>
          Accept incoming transfers automatically (pre-approval). Without it, payouts and refunds
          are offers you accept here.
        </label>
      </p>
      <button type="submit" class="primary" disabled={walletAction.busy !== null}>
        Create a devnet party
      </button>
    </form>
  );
}

function ImportDevnetParty(props: { devnet: Devnet; walletAction: WalletAction }) {
  const { devnet, walletAction } = props;
  const { setWallet } = useServices();
  const importId = useId();
  const [keyText, setKeyText] = useState('');
  return (
    <details>
      <summary>Import a devnet party</summary>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const keyFile = parseKeyFile(keyText);
          if (keyFile === null) {
            walletAction.setError(
              'That is not an exported key: paste the whole {"partyId", "privateKey"} text.',
            );
            return;
          }
          void walletAction.run('Importing your party…', async () => {
            setWallet(await BrowserDevnetWallet.import(devnet, keyFile));
          });
        }}
      >
        <label for={importId}>Exported key</label>
        <textarea
          id={importId}
          rows={3}
          value={keyText}
          onInput={(event) => setKeyText(event.currentTarget.value)}
        />
        <button type="submit" disabled={walletAction.busy !== null}>
          Import
        </button>
      </form>
    </details>
  );
}

interface ListedToken {
  readonly name: string;
  readonly admin: string;
}

function DevnetWalletTools(props: {
  wallet: BrowserDevnetWallet;
  balancesVersion: number;
  onFunded: (() => void) | undefined;
}) {
  const { wallet } = props;
  const { balances, tokens, message, error, busy, fund } = useDevnetWalletTools(
    wallet,
    props.balancesVersion,
    props.onFunded,
  );
  return (
    <>
      <Balances balances={balances} tokens={tokens} />
      <h3>Faucet</h3>
      <div class="row">
        {tokens.map((token) => (
          <button
            type="button"
            key={`${token.name}|${token.admin}`}
            disabled={busy}
            onClick={() => fund(token)}
          >
            Get {FAUCET_AMOUNT} {token.name}
            {issuerLabel(token, tokens) === null ? '' : ` (${issuerLabel(token, tokens)})`}
          </button>
        ))}
      </div>
      {message && <p role="status">{message}</p>}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <details>
        <summary>Export this party's key</summary>
        <p class="hint">
          Anyone with this text controls the party. Paste it into "Import a devnet party" elsewhere.
        </p>
        <label for="exported-key">Exported key</label>
        <textarea id="exported-key" readOnly rows={3} value={JSON.stringify(wallet.keyFile)} />
      </details>
    </>
  );
}

/**
 * The devnet party's balances (read again when `balancesVersion` changes and after the faucet),
 * the service's tokens, and the faucet minting `FAUCET_AMOUNT` of one.
 */
function useDevnetWalletTools(
  wallet: BrowserDevnetWallet,
  balancesVersion: number,
  onFunded: (() => void) | undefined,
) {
  const { pp } = useServices();
  const [balances, setBalances] = useState<DevnetBalance[] | null>(null);
  const [tokens, setTokens] = useState<ListedToken[]>([]);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const reload = useCallback(async () => {
    try {
      setBalances(await wallet.holdings());
    } catch (caught) {
      setError(describeError(caught));
    }
  }, [wallet]);

  useEffect(() => {
    void reload();
  }, [reload, balancesVersion]);

  useEffect(() => {
    pp?.tokens.list().then(
      ({ tokens: listed }) => setTokens(listed),
      (caught: unknown) => setError(describeError(caught)),
    );
  }, [pp]);

  const fund = async (token: ListedToken) => {
    setBusy(true);
    setError(null);
    try {
      await wallet.fund(token.name, FAUCET_AMOUNT, token.admin);
      setMessage(`Added ${FAUCET_AMOUNT} ${token.name}.`);
      await reload();
      onFunded?.();
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setBusy(false);
    }
  };

  return { balances, tokens, message, error, busy, fund };
}

function Balances(props: { balances: DevnetBalance[] | null; tokens: readonly ListedToken[] }) {
  const { balances, tokens } = props;
  return (
    <>
      <h3 id="balances-heading">Balances</h3>
      {balances === null ? (
        <p role="status">Loading balances…</p>
      ) : balances.length === 0 ? (
        <p>No tokens yet: use the faucet below.</p>
      ) : (
        <ul aria-labelledby="balances-heading" data-testid="balances">
          {balances.map((balance) => (
            <li key={`${balance.token}|${balance.admin}`} data-token={balance.token}>
              <span data-testid={`balance-${balance.token}`}>{formatAmount(balance.amount)}</span>{' '}
              {balance.token}
              {issuerLabel({ name: balance.token, admin: balance.admin }, tokens) !== null && (
                <span class="muted">
                  {' '}
                  ({issuerLabel({ name: balance.token, admin: balance.admin }, tokens)})
                </span>
              )}
              {balance.locked !== '0' && balance.locked !== '0.0' && (
                <span class="muted"> · {formatAmount(balance.locked)} locked</span>
              )}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
