/**
 * The choice contexts the devnet's registries hand out for allocation choices, and the check an
 * exercised choice's `extraArgs.context` must pass. Splice tells clients a context MAY be
 * specific to its choice; on the devnet every one is: it names the choice it was issued for (and,
 * on an allocation, the allocation), and a choice run with a context issued for another choice or
 * another allocation, or with none, is refused before anything happens.
 */
import { CantonApiError } from './canton-errors.js';

/** The context entry naming the choice the context was issued for (a Splice `AV_Text`). */
export const CONTEXT_CHOICE_KEY = 'poolparty.devnet/choice';
/** The context entry naming the allocation it was issued for (an `AV_ContractId`). */
export const CONTEXT_ALLOCATION_KEY = 'poolparty.devnet/allocation';

type AnyValue = { readonly tag: string; readonly value: string };

/** The entries that tie a context to its choice (and allocation, for a choice on one). */
export function choiceBindingEntries(
  choice: string,
  allocationId: string | null,
): Record<string, AnyValue> {
  return {
    [CONTEXT_CHOICE_KEY]: { tag: 'AV_Text', value: choice },
    ...(allocationId !== null && {
      [CONTEXT_ALLOCATION_KEY]: { tag: 'AV_ContractId', value: allocationId },
    }),
  };
}

function entryAt(values: unknown, key: string): AnyValue | null {
  if (typeof values !== 'object' || values === null) return null;
  const entry = (values as Record<string, unknown>)[key];
  if (typeof entry !== 'object' || entry === null) return null;
  const { tag, value } = entry as Record<string, unknown>;
  return typeof tag === 'string' && typeof value === 'string' ? { tag, value } : null;
}

function contextRefused(cause: string): CantonApiError {
  return new CantonApiError('DAML_FAILURE', 'InvalidIndependentOfSystemState', cause, {
    error_id: 'invalid_choice_context',
  });
}

/**
 * Refuses a choice whose `extraArgs.context` is not one the registry issued for this choice
 * (and this allocation).
 */
export function checkChoiceContext(
  extraArgs: unknown,
  choice: string,
  allocationId: string | null,
): void {
  const context = (extraArgs as { context?: { values?: unknown } } | null | undefined)?.context;
  const values = context?.values;
  const named = entryAt(values, CONTEXT_CHOICE_KEY);
  if (named === null) {
    throw contextRefused(
      `${choice} needs the registry's choice context in extraArgs.context; it has none`,
    );
  }
  if (named.tag !== 'AV_Text' || named.value !== choice) {
    throw contextRefused(`the choice context was issued for ${named.value}, not ${choice}`);
  }
  if (allocationId === null) return;
  const allocation = entryAt(values, CONTEXT_ALLOCATION_KEY);
  if (allocation?.tag !== 'AV_ContractId' || allocation.value !== allocationId) {
    throw contextRefused(
      `the choice context was issued for allocation ${allocation?.value ?? '(none)'}, not ${allocationId}`,
    );
  }
}
