/**
 * What became of a command id: Canton has no lookup by command id, only the completion stream of
 * a user's commands for some parties. The adapter reads it once from the ledger begin and then
 * only what is new, keeping the latest successful completion of every command id it has seen.
 */
import type { CommandCompletion, Offset } from '../port.js';
import { timeOrNull } from './time.js';
import type { CompletionStreamResponse } from './wire/index.js';

interface CompletionFields {
  readonly commandId?: string;
  readonly updateId?: string;
  readonly offset?: number;
  readonly status?: { readonly code?: number };
  readonly synchronizerTime?: { readonly recordTime?: string };
}

/**
 * The successful completions among stream items, in order, and the highest offset the items
 * cover (completions and checkpoints), or null when they name none.
 */
export function successfulCompletions(items: readonly CompletionStreamResponse[]): {
  readonly completions: readonly CommandCompletion[];
  readonly lastOffset: Offset | null;
} {
  const completions: CommandCompletion[] = [];
  let lastOffset: Offset | null = null;
  for (const item of items) {
    const response = item?.completionResponse as Record<string, { value?: unknown }> | undefined;
    const completion = response?.Completion?.value as CompletionFields | undefined;
    const checkpoint = response?.OffsetCheckpoint?.value as { offset?: unknown } | undefined;
    const offset = completion?.offset ?? checkpoint?.offset;
    if (typeof offset === 'number') lastOffset = Math.max(lastOffset ?? offset, offset);
    if (completion === undefined) continue;
    // A failed command also completes: with a status whose code is not OK, and no update.
    const succeeded = (completion.status?.code ?? 0) === 0;
    const recordTime = timeOrNull(completion.synchronizerTime?.recordTime);
    if (
      !succeeded ||
      typeof completion.commandId !== 'string' ||
      typeof completion.updateId !== 'string' ||
      typeof completion.offset !== 'number' ||
      recordTime === null
    ) {
      continue;
    }
    completions.push({
      commandId: completion.commandId,
      updateId: completion.updateId,
      offset: completion.offset,
      recordTime,
    });
  }
  return { completions, lastOffset };
}

/** Reads one page of the completions after `beginExclusive`. */
export type CompletionPageReader = (
  beginExclusive: Offset,
  parties: readonly string[],
) => Promise<readonly CompletionStreamResponse[]>;

export class CompletionIndex {
  private partiesKey: string | null = null;
  private cursor: Offset = 0;
  private readonly latest = new Map<string, CommandCompletion>();
  private catchingUp: Promise<void> | null = null;

  constructor(private readonly readPage: CompletionPageReader) {}

  /** The latest successful completion of `commandId` for `parties`, reading what is new first. */
  async lookup(commandId: string, parties: readonly string[]): Promise<CommandCompletion | null> {
    if (parties.length === 0) return null;
    const key = [...parties].sort().join('\n');
    if (key !== this.partiesKey) {
      // Completions of parties not covered so far may lie behind the cursor: read all again.
      await this.catchingUp?.catch(() => undefined);
      this.partiesKey = key;
      this.cursor = 0;
      this.latest.clear();
    }
    this.catchingUp ??= this.catchUp(parties).finally(() => {
      this.catchingUp = null;
    });
    await this.catchingUp;
    return this.latest.get(commandId) ?? null;
  }

  /** Remembers a completion the adapter saw itself (its own submission). */
  record(completion: CommandCompletion): void {
    const known = this.latest.get(completion.commandId);
    if (known === undefined || known.offset < completion.offset) {
      this.latest.set(completion.commandId, completion);
    }
  }

  private async catchUp(parties: readonly string[]): Promise<void> {
    while (true) {
      const items = await this.readPage(this.cursor, parties);
      const { completions, lastOffset } = successfulCompletions(items);
      for (const completion of completions) this.record(completion);
      // The participant may cut a page shorter than asked (its own list limit): only a page that
      // covers nothing new says the stream is read to its end.
      if (lastOffset === null || lastOffset <= this.cursor) return;
      this.cursor = lastOffset;
    }
  }
}
