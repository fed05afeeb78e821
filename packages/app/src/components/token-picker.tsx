/**
 * A side's token, chosen in a dialog with a search, keyboard first: the button names the side and
 * the token; it opens the token dialog (token-dialog.tsx), a printable key on the button starting
 * the search with it; Escape or Close shuts the dialog and gives the focus back to the button.
 * The dialog is a chunk of its own, fetched when the button is first focused or hovered, so the
 * first load carries the button alone.
 */
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { ErrorBoundary, lazy } from 'preact-iso';
import { choiceKey, issuerLabel, type TokenChoice } from '../token-choice.js';
import type { Spendable } from '../wallets/wallet.js';

const TokenDialog = lazy(() => import('./token-dialog.js').then((m) => m.TokenDialog));

/** Fetches the dialog ahead of the click; a failed fetch is left for opening it to meet. */
function preloadDialog(): void {
  TokenDialog.preload().catch(() => undefined);
}

export interface TokenPickerProps {
  /** The side, e.g. "You send": the button's label and the dialog's title. */
  readonly label: string;
  readonly choices: readonly TokenChoice[];
  /** Every token listed, to tell apart the symbols several admins issue. */
  readonly tokens: readonly TokenChoice[];
  readonly value: TokenChoice | null;
  onChange(key: string): void;
  /** The party's balances, shown beside each token; null while unknown. */
  readonly spendable: readonly Spendable[] | null;
  /** The id of what describes the button further (the side's balance). */
  readonly describedBy?: string | undefined;
}

export function TokenPicker(props: TokenPickerProps) {
  const labelId = useId();
  const valueId = useId();
  const trigger = useRef<HTMLButtonElement>(null);
  const [open, setOpen] = useState<{ query: string } | null>(null);
  const { value } = props;
  const issuer = value === null ? null : issuerLabel(value, props.tokens);
  const wasOpen = useRef(false);
  // Once the dialog is gone (and the page no longer inert under it), the focus is the button's.
  useEffect(() => {
    if (open === null && wasOpen.current) trigger.current?.focus();
    wasOpen.current = open !== null;
  }, [open]);
  const close = () => setOpen(null);
  return (
    <div class="token-choice">
      <span class="token-choice-label" id={labelId}>
        {props.label}
      </span>
      <button
        ref={trigger}
        type="button"
        class="token-button"
        aria-haspopup="dialog"
        aria-labelledby={`${labelId} ${valueId}`}
        aria-describedby={props.describedBy}
        data-token={value ? choiceKey(value) : ''}
        disabled={props.choices.length === 0}
        onFocus={preloadDialog}
        onPointerEnter={preloadDialog}
        onClick={() => setOpen((shown) => shown ?? { query: '' })}
        onKeyDown={(event) => {
          // Typing on the button starts the search with what was typed (kept while the dialog
          // is on its way).
          if (event.key.length !== 1 || event.ctrlKey || event.metaKey || event.altKey) return;
          if (event.key === ' ') return;
          event.preventDefault();
          const typed = event.key;
          setOpen((shown) => ({ query: `${shown?.query ?? ''}${typed}` }));
        }}
      >
        <span id={valueId} class="token-button-value">
          <span class="token-symbol">{value?.name ?? 'Choose'}</span>
          {issuer !== null && <span class="token-issuer">{issuer}</span>}
        </span>
        <span aria-hidden="true" class="token-button-caret">
          ▾
        </span>
      </button>
      {open !== null && (
        <ErrorBoundary>
          <TokenDialog
            {...props}
            initialQuery={open.query}
            onPick={(key: string) => {
              props.onChange(key);
              close();
            }}
            onClose={close}
          />
        </ErrorBoundary>
      )}
    </div>
  );
}
