/**
 * The operations of the JSON Ledger API (3.4.12) the devnet participant does not serve, each
 * answered with a JsCantonError that says so and why, rather than as an unknown path: a client
 * learns it reached a participant that chose not to serve the operation.
 */
import type { FastifyInstance } from 'fastify';
import { CantonApiError } from './canton-errors.js';

interface Unserved {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  readonly url: string;
  readonly why: string;
}

const REASSIGNMENTS = 'a devnet of one synchronizer has no reassignments';
const NO_DAML = 'the devnet runs the Token Standard natively, not Daml packages';
const TREES =
  'transaction trees are deprecated; ask for TRANSACTION_SHAPE_LEDGER_EFFECTS transactions';
const USERS = 'the devnet keeps its users for its life; it creates them and grants rights only';
const IDPS = 'the devnet has one identity provider, the default one';

/** Every operation of the API not served here (a fixed list: the API's, less the served ones). */
export const UNSERVED_OPERATIONS: readonly Unserved[] = [
  { method: 'POST', url: '/v2/commands/submit-and-wait-for-reassignment', why: REASSIGNMENTS },
  { method: 'POST', url: '/v2/commands/async/submit-reassignment', why: REASSIGNMENTS },
  { method: 'POST', url: '/v2/commands/submit-and-wait-for-transaction-tree', why: TREES },
  { method: 'POST', url: '/v2/updates/trees', why: TREES },
  { method: 'GET', url: '/v2/updates/transaction-tree-by-offset/:offset', why: TREES },
  { method: 'GET', url: '/v2/updates/transaction-tree-by-id/:updateId', why: TREES },
  { method: 'POST', url: '/v2/dars/validate', why: NO_DAML },
  { method: 'POST', url: '/v2/dars', why: NO_DAML },
  { method: 'POST', url: '/v2/packages', why: NO_DAML },
  { method: 'GET', url: '/v2/packages/:packageId', why: NO_DAML },
  { method: 'GET', url: '/v2/package-vetting', why: NO_DAML },
  { method: 'POST', url: '/v2/package-vetting', why: NO_DAML },
  { method: 'POST', url: '/v2/package-vetting/list', why: NO_DAML },
  { method: 'POST', url: '/v2/package-vetting/update', why: NO_DAML },
  { method: 'POST', url: '/v2/interactive-submission/preferred-packages', why: NO_DAML },
  { method: 'PATCH', url: '/v2/parties/:party', why: 'party details are not edited on the devnet' },
  { method: 'DELETE', url: '/v2/users/:userId', why: USERS },
  { method: 'PATCH', url: '/v2/users/:userId', why: USERS },
  { method: 'PATCH', url: '/v2/users/:userId/rights', why: USERS },
  { method: 'PATCH', url: '/v2/users/:userId/identity-provider-id', why: IDPS },
  { method: 'GET', url: '/v2/idps', why: IDPS },
  { method: 'POST', url: '/v2/idps', why: IDPS },
  { method: 'GET', url: '/v2/idps/:idpId', why: IDPS },
  { method: 'DELETE', url: '/v2/idps/:idpId', why: IDPS },
  { method: 'PATCH', url: '/v2/idps/:idpId', why: IDPS },
];

/** The refusal of an operation not served: UNIMPLEMENTED, as a participant without a service. */
function notServed(method: string, url: string, why: string): CantonApiError {
  return new CantonApiError(
    'UNSUPPORTED_OPERATION',
    'InternalUnsupportedOperation',
    `${method} ${url} is not served by the devnet ledger: ${why}`,
    { operation: `${method} ${url}` },
  );
}

export async function unservedOperationRoutes(app: FastifyInstance): Promise<void> {
  for (const { method, url, why } of UNSERVED_OPERATIONS) {
    app.route({
      method,
      url,
      handler: async () => {
        throw notServed(method, url, why);
      },
    });
  }
}
