/**
 * `poolparty admin …` run in the test's process on a store the test owns: what the command printed
 * and what it refused are collected, and the store stays open after it.
 */
import type { Database } from '@poolparty/store';
import { type AdminIo, adminCommand } from '../../src/admin/commands.js';

export interface AdminRun {
  readonly out: string[];
  readonly errors: string[];
}

/** Runs the command with `args` on `db`; `io` adds what the command reads besides the store. */
/**
 * `db` for a command that closes the store it is given when it ends: everything but the close
 * goes through, so the test or service that owns the store keeps it open.
 */
export function unclosable(db: Database): Database {
  return {
    kind: db.kind,
    query: (sql, params) => db.query(sql, params),
    exec: (sql) => db.exec(sql),
    transaction: (fn) => db.transaction(fn),
    listen: (channel, onPayload, onLost) => db.listen(channel, onPayload, onLost),
    close: async () => {},
  };
}

export async function runAdmin(
  db: Database,
  io: Omit<AdminIo, 'open' | 'print' | 'fail'>,
  args: readonly string[],
): Promise<AdminRun> {
  const out: string[] = [];
  const errors: string[] = [];
  // The test owns the store; the command must not close it.
  const store = unclosable(db);
  await adminCommand({
    ...io,
    open: async () => store,
    print: (line) => out.push(line),
    fail: (message) => errors.push(message),
  }).parseAsync([...args], { from: 'user' });
  return { out, errors };
}
