/**
 * `poolparty admin`: what only an operator may decide, run against the store.
 *
 *   admin refunds list                                   open refund_failed cases
 *   admin refunds retry <intentId>                       a new attempt of the parked refund
 *   admin refunds resolve <intentId> --note "…" [--release]
 *   admin flags list                                     every open operator flag
 *   admin flags resolve <flagId> --note "…"              e.g. a reconciliation mismatch
 *
 * A resolved `reconciliation_mismatch` flag lets the pool's next reconciliation run pass, if the
 * books and the ledger agree by then; until that run the pool stays blocked.
 */
import { Command } from 'commander';
import type { Database } from '../store/database.js';
import { listOpenOperatorFlags, resolveOperatorFlag } from '../store/operator-flags.js';
import {
  AdminError,
  listRefundCases,
  type RefundCase,
  resolveRefund,
  retryRefund,
} from './refunds.js';

/** Open flags listed at most by `admin flags list`. */
export const FLAGS_LIST_MAX = 500;

export type CommandFlags = Record<string, string | boolean | undefined>;

export interface AdminIo {
  /** Opens the store the command works on (settings from the environment and the flags). */
  open(flags: CommandFlags): Promise<Database>;
  /** Adds the service's setting flags (`--database-url`, …) to a command. */
  withSettingFlags?(command: Command): Command;
  print(line: string): void;
  /** Reports a refused request; the command then exits non-zero. */
  fail(message: string): void;
  now(): Date;
}

export function adminCommand(io: AdminIo): Command {
  const admin = new Command('admin').description('operator actions on the store');
  const leaf = (parent: Command, name: string) => {
    const command = parent.command(name);
    return io.withSettingFlags ? io.withSettingFlags(command) : command;
  };
  const run =
    <A extends unknown[]>(work: (db: Database, ...args: A) => Promise<void>) =>
    async (...args: A) => {
      const command = args.at(-1) as Command;
      const db = await io.open(command.opts<CommandFlags>());
      try {
        await work(db, ...args);
      } catch (error) {
        if (!(error instanceof AdminError)) throw error;
        io.fail(error.message);
      } finally {
        await db.close();
      }
    };

  const refunds = admin.command('refunds').description('refunds parked for an operator');
  leaf(refunds, 'list')
    .description('open refund_failed cases, oldest first')
    .action(
      run(async (db) => {
        const cases = await listRefundCases(db);
        if (cases.length === 0) io.print('no open refund cases');
        for (const refund of cases) io.print(describeCase(refund));
      }),
    );
  leaf(refunds, 'retry <intentId>')
    .description('record a new attempt of the refund; a running worker submits it')
    .action(
      run(async (db, subject: string) => {
        const retried = await retryRefund(db, subject, io.now());
        io.print(`recorded ${retried.commandId}: ${retried.amount} to ${retried.receiver}`);
      }),
    );
  leaf(refunds, 'resolve <intentId>')
    .description('close the case: the funds were handled off-band')
    .requiredOption('--note <text>', 'what was done, for the record')
    .option('--release', 'the parked amount left the swap party off-band: take it off the books')
    .action(
      run(async (db, subject: string, options: { note: string; release?: boolean }) => {
        const flag = await resolveRefund(db, subject, {
          note: options.note,
          release: options.release === true,
          now: io.now(),
        });
        io.print(`resolved flag ${flag.id}: ${flag.resolution ?? ''}`);
      }),
    );

  const flags = admin.command('flags').description('situations only an operator can resolve');
  leaf(flags, 'list')
    .description('open operator flags, oldest first')
    .action(
      run(async (db) => {
        const open = await listOpenOperatorFlags(db, FLAGS_LIST_MAX);
        if (open.length === 0) io.print('no open flags');
        for (const flag of open) {
          const subject = flag.intentId ?? flag.depositId ?? '-';
          io.print(
            `${flag.id}\t${flag.kind}\t${subject}\t${flag.createdAt.toISOString()}\t${JSON.stringify(flag.details)}`,
          );
        }
      }),
    );
  leaf(flags, 'resolve <flagId>')
    .description('mark a flag resolved')
    .requiredOption('--note <text>', 'what was done, for the record')
    .action(
      run(async (db, id: string, options: { note: string }) => {
        const flagId = Number(id);
        if (!Number.isSafeInteger(flagId)) throw new AdminError(`not a flag id: ${id}`);
        if (options.note.trim().length === 0) throw new AdminError('a note is required');
        const flag = await resolveOperatorFlag(db, {
          id: flagId,
          resolution: options.note,
          now: io.now(),
        });
        if (flag === null) throw new AdminError(`no open flag ${flagId}`);
        io.print(`resolved flag ${flag.id} (${flag.kind})`);
      }),
    );
  return admin;
}

function describeCase(refund: RefundCase): string {
  const subject = refund.intentId ?? `deposit ${refund.depositId ?? '?'}`;
  const what =
    refund.amount === null || refund.instrument === null
      ? 'no refund recorded'
      : `${refund.amount} ${refund.instrument.id} (${refund.instrument.admin}) to ${refund.receiver ?? '?'}`;
  const attempt = refund.lastAttempt
    ? `${refund.lastAttempt.commandId} ${refund.lastAttempt.status}`
    : 'no attempt';
  return [
    `flag ${refund.flagId}`,
    subject,
    refund.status ?? '?',
    refund.poolId ?? '-',
    what,
    attempt,
    refund.error ?? '',
    refund.raisedAt.toISOString(),
  ].join('\t');
}
