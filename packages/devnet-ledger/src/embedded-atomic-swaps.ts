/**
 * Atomic swaps on the embedded ledger (docs/spec/atomic-swaps.md#ledger-port): the canton
 * adapter's flow (`InteractiveAtomicSwaps`) over this package's own interactive submission, run
 * in process on the local ledger instead of over HTTP.
 *
 * Decisions:
 * - The prepared transaction is the one `poolparty devnet-ledger` answers at
 *   `/v2/interactive-submission/prepare`: the same legs (`transferFactoryOf`, `planLeg`), the same
 *   protobuf and V2 hash (`preparedSubmission`), so a wallet, the SDK's `verify()` and Canton's
 *   transaction visualizer read it alike. Executing is the route's `executePrepared`: the hash
 *   recomputed, the trader's signature checked against it, every leg checked, then both legs
 *   committed as one update (`submitTransfers`).
 * - The trader's registered key is the key its party was created with (the devnet wallet's, by
 *   `/devnet/parties`): the ledger's `isSigningKeyOf`. The pool's swap party is an internal party
 *   the service controls: the ledger's own user executes for it, and no key signs for it.
 * - An in-process refusal reaches the flow as the participant's HTTP client would see it — its
 *   Canton error body with the status Canton answers it with — so the port's codes are the canton
 *   adapter's by construction, read by the same code.
 * - A second execution answers the first commit from the ledger's completions (`lookupCommand`),
 *   also for a port made anew over the same ledger (a restarted service).
 */
import {
  type AtomicSwapPort,
  CantonRequestError,
  InteractiveAtomicSwaps,
  LedgerError,
  type LocalLedger,
  type RequestKind,
  type SwapParticipant,
} from '@poolparty/ledger';
import { asCantonError, RegistryError } from './canton-errors.js';
import type { ServerContext } from './context.js';
import { type Executor, executePrepared, preparedSubmission } from './interactive-submission.js';
import { transferFactoryOf } from './registry.js';
import { serverContext } from './server.js';
import { DEFAULT_USER } from './users.js';

/** Runs an in-process request, its refusal as the HTTP client of a participant reports it. */
async function asParticipant<T>(kind: RequestKind, what: string, run: () => Promise<T>) {
  try {
    return await run();
  } catch (error) {
    if (error instanceof RegistryError) {
      // As the canton adapter's registry client reads a registry's 404: the instrument is not served.
      const code = error.status === 404 ? 'unknown_instrument' : 'rejected';
      throw new LedgerError(code, `${what}: ${error.message}`);
    }
    const refusal = asCantonError(error);
    if (refusal === null) throw error;
    const failure = { kind: 'status', status: refusal.status, body: refusal.body() } as const;
    throw new CantonRequestError(failure, kind, what);
  }
}

/**
 * The service executing on the embedded ledger it controls: the ledger's own user, whose rights
 * (every party's) there is nothing to check — reading them lists every party, at every execution.
 */
const LEDGER_ITSELF: Executor = { user: DEFAULT_USER, authorize: async () => {} };

function inProcessParticipant(ctx: ServerContext): SwapParticipant {
  const { ledger } = ctx;
  return {
    transferFactory: (admin, choiceArgument) =>
      asParticipant('read', `transfer factory of ${admin}`, () =>
        transferFactoryOf(ledger, admin, {
          choiceArguments: choiceArgument,
          excludeDebugFields: true,
        }),
      ),
    prepare: (request) =>
      asParticipant('read', 'prepare', () => preparedSubmission(ctx, { ...request })),
    execute: (request) =>
      asParticipant('submit', `execute ${request.submissionId}`, async () => {
        const { updateId, offset } = await executePrepared(ctx, LEDGER_ITSELF, { ...request });
        return { updateId, offset };
      }),
    async committed(commandId) {
      const completion = await ledger.lookupCommand(commandId);
      return completion === null
        ? null
        : { updateId: completion.updateId, offset: completion.offset };
    },
  };
}

/** The embedded ledger's `AtomicSwapPort` (see the module's note). */
export function embeddedAtomicSwaps(ledger: LocalLedger): AtomicSwapPort {
  const ctx = serverContext({ ledger });
  const swaps = new InteractiveAtomicSwaps({
    participant: inProcessParticipant(ctx),
    userId: DEFAULT_USER,
    now: () => ledger.now(),
    getHoldings: (partyId) => ledger.getHoldings(partyId),
    requireParty: async (partyId) => {
      if ((await ledger.getParty(partyId)) === null) {
        throw new LedgerError('unknown_party', `the ledger knows no party ${partyId}`);
      }
    },
    isSigningKeyOf: (partyId, key) => ledger.isSigningKeyOf(partyId, key),
    // Nothing is set aside in this process: the embedded ledger's own transfers pass over the
    // holdings live swaps reserve (`avoidHoldingIds`), read just before each is sent.
    endAside: () => {},
  });
  return {
    prepareAtomicSwap: (command) => swaps.prepare(command),
    executeAtomicSwap: (command) => swaps.execute(command),
  };
}
