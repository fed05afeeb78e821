/**
 * Persistence of the local ledger: an append-only JSON-lines journal, `<dataDir>/ledger.jsonl`,
 * of every applied entry (entries.ts), replayed in order at open.
 *
 * Why a journal of entries rather than snapshots of state: entries are small, self-describing
 * and already the unit of change, so persisting is one append per change and recovery is the
 * same code path as live operation (apply.ts). Offsets, ids, holdings, offers, parties, keys,
 * pre-approvals, completions, clock advances, prices and the operator namespace all follow from
 * the entries. Only committed changes are written; refused commands leave no trace.
 *
 * Each entry is written with a synchronous append before the caller gets its answer, so once a
 * change is acknowledged, a process crash cannot lose it (no fsync: a power loss may). A crash in
 * the middle of a write leaves a torn last line; it was never acknowledged, so it is dropped
 * (and cut from the file) at the next open. A malformed line anywhere else means the journal
 * was damaged, and the open fails rather than guess.
 *
 * One process at a time may open a data folder; nothing enforces it.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { BaseError } from '@poolparty/core';
import type { LedgerEntry } from './entries.js';

export const JOURNAL_FILE = 'ledger.jsonl';

export class JournalError extends BaseError<'ledger_journal_damaged'> {
  override readonly name = 'JournalError';
  constructor(message: string) {
    super('ledger_journal_damaged', message);
  }
}

export class Journal {
  private constructor(readonly path: string) {}

  /** Opens (creating the folder if needed) and reads the journal of `dataDir`. */
  static open(dataDir: string): { readonly journal: Journal; readonly entries: LedgerEntry[] } {
    mkdirSync(dataDir, { recursive: true });
    const path = join(dataDir, JOURNAL_FILE);
    const entries = existsSync(path) ? readJournal(path) : [];
    return { journal: new Journal(path), entries };
  }

  append(entry: LedgerEntry): void {
    appendFileSync(this.path, `${JSON.stringify(entry)}\n`, 'utf8');
  }
}

function readJournal(path: string): LedgerEntry[] {
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  // Everything after the last newline is an unfinished write (empty when the file is whole).
  const torn = lines.pop() ?? '';
  if (torn.length > 0)
    truncateSync(path, Buffer.byteLength(text, 'utf8') - Buffer.byteLength(torn, 'utf8'));
  return lines.map((line, index) => parseLine(path, line, index + 1));
}

function parseLine(path: string, line: string, lineNumber: number): LedgerEntry {
  try {
    const entry: unknown = JSON.parse(line);
    if (
      typeof entry === 'object' &&
      entry !== null &&
      typeof (entry as { op?: unknown }).op === 'string'
    ) {
      return entry as LedgerEntry;
    }
  } catch {
    // reported below
  }
  throw new JournalError(`${path}:${lineNumber} is not a ledger entry; the journal is damaged`);
}
