/**
 * The canton adapter's `SwapParticipant`: an atomic swap prepared and executed by a participant
 * over its JSON Ledger API (`/v2/interactive-submission/prepare` and
 * `/executeAndWaitForTransaction`), its legs' factories from the instruments' registries. The
 * HTTP client already answers a refusal as a `CantonRequestError` with the participant's body.
 */
import { type CommandResult, LedgerError, type LedgerUpdate } from '../port.js';
import type { AtomicSwapExecution, SwapParticipant } from './atomic-swaps.js';
import { transactionFormat } from './filters.js';
import { joinUrl } from './http.js';
import type { ParticipantClient } from './participant.js';
import type { RegistryClient } from './registry.js';
import type {
  JsPrepareSubmissionRequest,
  JsPrepareSubmissionResponse,
  JsTransaction,
} from './wire/index.js';

export interface CantonSwapParticipantDeps {
  readonly participant: ParticipantClient;
  readonly registry: RegistryClient;
  readonly submitTimeoutMs: number;
  decode(commandId: string, transaction: JsTransaction): Promise<LedgerUpdate>;
  firstTransaction(commandId: string, party: string): Promise<JsTransaction | null>;
}

const resultOf = (update: LedgerUpdate): CommandResult => ({
  updateId: update.updateId,
  offset: update.offset,
});

export function cantonSwapParticipant(deps: CantonSwapParticipantDeps): SwapParticipant {
  const { participant, submitTimeoutMs } = deps;
  const url = (path: string) => joinUrl(participant.ledgerApiUrl, path);
  return {
    transferFactory: (admin, choiceArgument) =>
      deps.registry.transferFactory(admin, choiceArgument),
    prepare: (request: JsPrepareSubmissionRequest) =>
      participant.http.post<JsPrepareSubmissionResponse>(
        url('/v2/interactive-submission/prepare'),
        request,
        // Preparing changes nothing on the ledger: its failures are refusals (a lost answer too).
        { kind: 'read', timeoutMs: submitTimeoutMs },
      ),
    async execute(request: AtomicSwapExecution, parties: readonly string[]) {
      const answer = await participant.http.post<{ transaction?: JsTransaction }>(
        url('/v2/interactive-submission/executeAndWaitForTransaction'),
        { ...request, transactionFormat: transactionFormat({ kind: 'parties', parties }) },
        { kind: 'submit', timeoutMs: submitTimeoutMs },
      );
      const commandId = request.submissionId;
      if (answer.transaction === undefined) {
        throw new LedgerError('timeout', `${commandId} executed without its transaction`);
      }
      return resultOf(await deps.decode(commandId, answer.transaction));
    },
    async committed(commandId, party) {
      const first = await deps.firstTransaction(commandId, party);
      return first === null ? null : resultOf(await deps.decode(commandId, first));
    },
  };
}
