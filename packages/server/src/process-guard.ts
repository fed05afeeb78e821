/**
 * The last line of defence of a `serve` process against a lost store connection: a rejection no
 * code awaited, or an `error` event no code listened to, that comes from the store's connection
 * failing is logged and the process goes on. Each piece of background work that met it simply
 * did not run this time and runs again on its own schedule; nothing it left half-done is kept in
 * memory, since every decision lives in the store's transactions.
 *
 * Any other unhandled failure is a defect: it is logged and the process exits with 1, as Node
 * would, so that a supervisor restarts it from the store instead of it running on in a state no
 * one planned for.
 */
import { causedByConnectionLoss } from '@poolparty/store';

export interface GuardLog {
  warn(details: { err: unknown }, message: string): void;
  fatal(details: { err: unknown }, message: string): void;
}

export function guardAgainstStoreLoss(log: () => GuardLog): void {
  const onFailure = (what: string) => (error: unknown) => {
    if (causedByConnectionLoss(error)) {
      log().warn({ err: error }, `${what} from a lost store connection; carrying on`);
      return;
    }
    log().fatal({ err: error }, `${what}; stopping`);
    process.exit(1);
  };
  process.on('unhandledRejection', onFailure('unhandled rejection'));
  process.on('uncaughtException', onFailure('uncaught exception'));
}
