/**
 * The token dialog of a swap side (token-picker.tsx opens it): a modal dialog whose search field
 * filters the tokens by symbol, issuer or admin id as one types, the arrows moving through the
 * list and Enter picking; Escape, Close or a click beside it shuts it. The list is a listbox the
 * field controls (the combobox pattern: the focus stays in the field), each option with its
 * issuer and, when known, the party's balance of it. Which tokens match is token-choice.ts.
 */
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { formatAmount, shortParty } from '../format.js';
import { choiceKey, optionAfterKey, searchTokens, type TokenChoice } from '../token-choice.js';
import type { Spendable } from '../wallets/wallet.js';
import type { TokenPickerProps } from './token-picker.js';

type TokenDialogProps = TokenPickerProps & {
  initialQuery: string;
  onPick(key: string): void;
  onClose(): void;
};

/** The search's state: the query, the tokens it finds, the active one, and the keys it takes. */
function useTokenSearch(props: TokenDialogProps) {
  const [query, setQuery] = useState(props.initialQuery);
  const [active, setActive] = useState(0);
  const found = searchTokens(props.choices, query);
  const shown = Math.min(active, Math.max(found.length - 1, 0));
  const onInput = (text: string) => {
    setQuery(text);
    setActive(0);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') {
      // Closes at once: a search field's own Escape would only empty it first.
      event.preventDefault();
      props.onClose();
      return;
    }
    if (event.key === 'Enter') {
      // The dialog sits in the swap form: Enter picks, it never submits the swap.
      event.preventDefault();
      const picked = found[shown];
      if (picked) props.onPick(choiceKey(picked));
      return;
    }
    const next = optionAfterKey(event.key, shown, found.length);
    if (next === null) return;
    event.preventDefault();
    setActive(next);
  };
  return { query, found, shown, onInput, onKeyDown };
}

export function TokenDialog(props: TokenDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const search = useRef<HTMLInputElement>(null);
  const titleId = useId();
  const searchId = useId();
  const listId = useId();
  const { query, found, shown, onInput, onKeyDown } = useTokenSearch(props);
  const optionId = (index: number) => `${listId}-${index}`;
  useEffect(() => {
    dialog.current?.showModal();
    search.current?.focus();
  }, []);
  useEffect(() => {
    document.getElementById(optionId(shown))?.scrollIntoView({ block: 'nearest' });
  }, [shown, query]);
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: a click on the backdrop closes, as Escape does from the keyboard
    <dialog
      ref={dialog}
      class="token-dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        props.onClose();
      }}
      onClick={(event) => {
        if (event.target === event.currentTarget) props.onClose();
      }}
    >
      <div class="token-dialog-head">
        <h2 id={titleId}>{props.label}: choose a token</h2>
        <button type="button" class="token-dialog-close" onClick={props.onClose}>
          Close
        </button>
      </div>
      <label for={searchId}>Search by symbol, issuer or admin id</label>
      <input
        ref={search}
        id={searchId}
        type="search"
        // biome-ignore lint/a11y/noRedundantRoles: without a datalist a search field is a searchbox, which takes no aria-expanded; the combobox role says it controls the listbox
        role="combobox"
        // No datalist: the listbox below is the popup (preact's types ask for the attribute).
        list={undefined}
        aria-expanded="true"
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={found.length > 0 ? optionId(shown) : undefined}
        autoComplete="off"
        spellcheck={false}
        value={query}
        onInput={(event) => onInput(event.currentTarget.value)}
        onKeyDown={onKeyDown}
      />
      <div
        role="listbox"
        id={listId}
        aria-label="Tokens"
        class="token-options"
        hidden={found.length === 0}
      >
        {found.map((token, index) => (
          <TokenOption
            key={choiceKey(token)}
            id={optionId(index)}
            token={token}
            spendable={props.spendable}
            active={index === shown}
            chosen={props.value !== null && choiceKey(props.value) === choiceKey(token)}
            onPick={() => props.onPick(choiceKey(token))}
          />
        ))}
      </div>
      {found.length === 0 && (
        <p class="hint" role="status" data-testid="token-search-empty">
          No token matches “{query.trim()}”.
        </p>
      )}
    </dialog>
  );
}

function TokenOption(props: {
  id: string;
  token: TokenChoice;
  spendable: readonly Spendable[] | null;
  active: boolean;
  chosen: boolean;
  onPick(): void;
}) {
  const { token } = props;
  const held = props.spendable?.find((s) => s.token === token.name && s.admin === token.admin);
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents lint/a11y/useFocusableInteractive: the search field keeps the focus and its arrows and Enter choose (aria-activedescendant), as the combobox pattern has it
    <div
      id={props.id}
      role="option"
      aria-selected={props.active}
      class={props.active ? 'token-option active' : 'token-option'}
      data-token={choiceKey(token)}
      onClick={props.onPick}
    >
      <span class="token-symbol">
        {token.name}
        {props.chosen && <span class="badge">chosen</span>}
      </span>
      <span class="token-issuer" title={token.admin}>
        Issued by {shortParty(token.admin)}
      </span>
      {held && <span class="token-held">{formatAmount(held.amount)}</span>}
    </div>
  );
}
