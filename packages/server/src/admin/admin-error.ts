/**
 * A request of `poolparty admin` that cannot be carried out as asked: a typo in an option, a pool
 * or key that does not exist, a state that does not allow the change. The command prints its
 * message (the short message: an admin refusal has no cause) and exits non-zero, having written
 * nothing.
 *
 * It is a domain refusal with a catalogue code, as the API's are, so an operator command reads the
 * same whether a CLI or an HTTP route runs it. The catalogue has no general conflict code: a
 * change the current state does not allow (a refund still in flight, a pool already paused, a
 * swap party already serving a pool) is `precondition_failed`, the state the command requires
 * being its precondition.
 */
import { DomainError } from '@poolparty/core';

export type AdminRefusal =
  /** What the operator typed cannot be read, or a setting the command needs is missing. */
  | 'validation_error'
  /** A flag, key, discount, party or case the command names does not exist. */
  | 'not_found'
  | 'pool_not_found'
  /** An instrument the ledger's registries do not know. */
  | 'token_not_found'
  /** The store or the ledger holds something the change requires otherwise. */
  | 'precondition_failed'
  /** A pool's reserves too small to mint the units locked forever. */
  | 'first_deposit_too_small'
  /** The ledger (or the devnet ledger server) cannot be reached or read. */
  | 'ledger_unavailable';

export class AdminError extends DomainError<AdminRefusal> {
  override name = 'AdminError';
}
