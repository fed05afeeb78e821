/**
 * The Canton JSON Ledger API v2 types the codec speaks, from the OpenAPI document of API 3.4.12
 * as generated in `@canton-network/core-ledger-client-types` (3.4 is what both the adapter and
 * the devnet ledger target; 3.5 participants answer the same shapes for these).
 */
import type { LedgerSchemasByVersion } from '@canton-network/core-ledger-client-types';

type Schemas = LedgerSchemasByVersion['3.4'];

export type JsTransaction = Schemas['JsTransaction'];
export type Event = Schemas['Event'];
export type CreatedEvent = Schemas['CreatedEvent'];
export type ExercisedEvent = Schemas['ExercisedEvent'];
export type ArchivedEvent = Schemas['ArchivedEvent'];
export type JsInterfaceView = Schemas['JsInterfaceView'];
export type JsStatus = Schemas['JsStatus'];
export type TraceContext = Schemas['TraceContext'];
export type Update = Schemas['Update'];
export type OffsetCheckpoint = Schemas['OffsetCheckpoint1'];
export type SynchronizerTime = Schemas['SynchronizerTime'];
export type JsGetUpdatesResponse = Schemas['JsGetUpdatesResponse'];
export type GetUpdatesRequest = Schemas['GetUpdatesRequest'];
export type UpdateFormat = Schemas['UpdateFormat'];
export type TransactionFormat = Schemas['TransactionFormat'];
export type EventFormat = Schemas['EventFormat'];
export type Filters = Schemas['Filters'];
export type CumulativeFilter = Schemas['CumulativeFilter'];
export type GetActiveContractsRequest = Schemas['GetActiveContractsRequest'];
export type JsGetActiveContractsResponse = Schemas['JsGetActiveContractsResponse'];
export type JsContractEntry = Schemas['JsContractEntry'];
export type JsActiveContract = Schemas['JsActiveContract'];
export type GetLedgerEndResponse = Schemas['GetLedgerEndResponse'];
export type JsCommands = Schemas['JsCommands'];
export type Command = Schemas['Command'];
export type ExerciseCommand = Schemas['ExerciseCommand'];
export type DisclosedContract = Schemas['DisclosedContract'];
export type DeduplicationPeriod = Schemas['DeduplicationPeriod'];
export type JsSubmitAndWaitForTransactionRequest = Schemas['JsSubmitAndWaitForTransactionRequest'];
export type JsSubmitAndWaitForTransactionResponse =
  Schemas['JsSubmitAndWaitForTransactionResponse'];
export type JsPrepareSubmissionRequest = Schemas['JsPrepareSubmissionRequest'];
export type JsPrepareSubmissionResponse = Schemas['JsPrepareSubmissionResponse'];
export type JsExecuteSubmissionAndWaitForTransactionRequest =
  Schemas['JsExecuteSubmissionAndWaitForTransactionRequest'];
export type JsExecuteSubmissionAndWaitForTransactionResponse =
  Schemas['JsExecuteSubmissionAndWaitForTransactionResponse'];
export type GetEventsByContractIdRequest = Schemas['GetEventsByContractIdRequest'];
export type JsGetEventsByContractIdResponse = Schemas['JsGetEventsByContractIdResponse'];
export type CompletionStreamRequest = Schemas['CompletionStreamRequest'];
export type CompletionStreamResponse = Schemas['CompletionStreamResponse'];
export type PartyDetails = Schemas['PartyDetails'];
export type GetPartiesResponse = Schemas['GetPartiesResponse'];
export type ListUserRightsResponse = Schemas['ListUserRightsResponse'];
export type Right = Schemas['Right'];
export type JsCantonError = Schemas['JsCantonError'];
