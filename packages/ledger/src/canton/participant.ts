/**
 * The participant's JSON Ledger API v2 as the adapter uses it: one method per request, each
 * answering what the port needs from it (offsets, created events, transactions) and leaving the
 * port's decisions to the adapter.
 */
import { LedgerError, type Offset } from '../port.js';
import { CantonRequestError, type RequestKind } from './errors.js';
import {
  actAsPartiesOfRights,
  activeContractsRequest,
  activeSetChangesRequest,
  eventFormat,
  interfaceFilter,
  type PartyScope,
  readScopeOfRights,
  updatesRequest,
} from './filters.js';
import { type JsonHttpClient, joinUrl } from './http.js';
import { type PartySigner, submitExternally } from './interactive-submission.js';
import { timeOrNull } from './time.js';
import { isTooLarge } from './update-stream.js';
import {
  ALLOCATION_INTERFACE_ID,
  type CompletionStreamResponse,
  type CreatedEvent,
  type GetUpdatesRequest,
  type JsCommands,
  type JsGetActiveContractsResponse,
  type JsGetEventsByContractIdResponse,
  type JsGetUpdatesResponse,
  type JsTransaction,
  type ListUserRightsResponse,
  TRANSFER_INSTRUCTION_INTERFACE_ID,
  type TransactionFormat,
} from './wire/index.js';
import { webSocketList } from './ws-list.js';

/** Completions one page of the completions stream asks for. */
const COMPLETIONS_PAGE_SIZE = 500;
/** How long the participant waits for more completions before answering a page. */
const COMPLETIONS_IDLE_MS = 200;

/** The namespace of a party or participant id: what follows its last `::`. */
export function namespaceOf(id: string): string | null {
  const at = id.lastIndexOf('::');
  return at < 0 ? null : id.slice(at + 2);
}

/** A 404 or Canton's "resource missing" category: the thing asked for does not exist. */
function isNotFound(error: unknown): boolean {
  if (!(error instanceof CantonRequestError) || error.failure.kind !== 'status') return false;
  const { status, body } = error.failure;
  const category = (body as { errorCategory?: unknown } | undefined)?.errorCategory;
  return status === 404 || category === 11 || error.code === 'unknown_party';
}

/** The record time an updates item reports: its transaction's, or its checkpoint's latest. */
export function recordTimeOf(item: JsGetUpdatesResponse): Date | null {
  const update = (item?.update ?? {}) as Record<string, { value?: Record<string, unknown> }>;
  const transactionTime = timeOrNull(update.Transaction?.value?.recordTime);
  if (transactionTime !== null) return transactionTime;
  const times = update.OffsetCheckpoint?.value?.synchronizerTimes;
  let latest: Date | null = null;
  for (const entry of Array.isArray(times) ? times : []) {
    const time = timeOrNull((entry as { recordTime?: unknown }).recordTime);
    if (time !== null && (latest === null || time > latest)) latest = time;
  }
  return latest;
}

/** The transaction an updates item carries, if it carries one. */
export function transactionOf(item: JsGetUpdatesResponse): JsTransaction | undefined {
  return (item?.update as { Transaction?: { value?: JsTransaction } } | undefined)?.Transaction
    ?.value;
}

export class ParticipantClient {
  private readsAnyParty = false;
  private completionsLimit = COMPLETIONS_PAGE_SIZE;

  constructor(
    readonly http: JsonHttpClient,
    readonly ledgerApiUrl: string,
    private readonly userId: string,
  ) {}

  /** The participant's namespace: where its own (internal) parties live. */
  async namespace(): Promise<string> {
    const { participantId } = await this.http.get<{ participantId?: unknown }>(
      this.url('/v2/parties/participant-id'),
    );
    const namespace = typeof participantId === 'string' ? namespaceOf(participantId) : null;
    if (namespace === null) {
      throw new LedgerError(
        'rejected',
        `the participant id ${String(participantId)} is unreadable`,
      );
    }
    return namespace;
  }

  async ledgerEnd(): Promise<Offset> {
    const { offset } = await this.http.get<{ offset?: unknown }>(this.url('/v2/state/ledger-end'));
    return typeof offset === 'number' ? offset : 0;
  }

  /** Whether the participant knows the party (Canton leaves unknown ones out of the answer). */
  async knowsParty(partyId: string): Promise<boolean> {
    try {
      const answer = await this.http.get<{ partyDetails?: { party?: unknown }[] }>(
        this.url(`/v2/parties/${encodeURIComponent(partyId)}`),
      );
      const details = Array.isArray(answer.partyDetails) ? answer.partyDetails : [];
      return details.some((detail) => detail.party === partyId);
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  /** Every party the participant lists. */
  async parties(): Promise<readonly string[]> {
    const parties: string[] = [];
    let pageToken = '';
    // Bounded: a participant that keeps answering with a next page cannot loop us forever.
    for (let page = 0; page < 10_000; page += 1) {
      const query = pageToken === '' ? '' : `?pageToken=${encodeURIComponent(pageToken)}`;
      const answer = await this.http.get<{
        partyDetails?: { party?: unknown }[];
        nextPageToken?: unknown;
      }>(this.url(`/v2/parties${query}`));
      for (const detail of answer.partyDetails ?? []) {
        if (typeof detail.party === 'string') parties.push(detail.party);
      }
      if (typeof answer.nextPageToken !== 'string' || answer.nextPageToken === '') break;
      pageToken = answer.nextPageToken;
    }
    return parties;
  }

  /**
   * Whom the user may read as: every party (`CanReadAsAnyParty`) or its acting and reading
   * parties. Party rights grow as parties are added, so they are read each time; the right to
   * read as any party covers those too and is kept.
   */
  async readScope(): Promise<PartyScope> {
    if (this.readsAnyParty) return { kind: 'any' };
    const scope = readScopeOfRights(await this.userRights());
    this.readsAnyParty = scope.kind === 'any';
    return scope;
  }

  /** The parties the user may act as (`CanActAs`), read afresh: rights are granted as pools are added. */
  async actAsParties(): Promise<ReadonlySet<string>> {
    return actAsPartiesOfRights(await this.userRights());
  }

  private userRights(): Promise<ListUserRightsResponse> {
    return this.http.get<ListUserRightsResponse>(
      this.url(`/v2/users/${encodeURIComponent(this.userId)}/rights`),
    );
  }

  /** The created events of the contracts of `interfaceId` active at `offset` in `scope`. */
  async activeContracts(
    offset: Offset,
    scope: PartyScope,
    interfaceId: string,
  ): Promise<CreatedEvent[]> {
    // Offset zero is the empty ledger, and a scope without parties sees nothing.
    if (offset === 0 || (scope.kind === 'parties' && scope.parties.length === 0)) return [];
    const request = activeContractsRequest(offset, scope, interfaceId);
    let answer: JsGetActiveContractsResponse[];
    try {
      answer = await this.http.post<JsGetActiveContractsResponse[]>(
        this.url('/v2/state/active-contracts'),
        request,
        { kind: 'read' },
      );
    } catch (error) {
      if (!isTooLarge(error)) throw error;
      // More contracts than the participant lists over HTTP: the WebSocket streams them all.
      answer = await webSocketList<JsGetActiveContractsResponse>({
        ledgerApiUrl: this.ledgerApiUrl,
        path: '/v2/state/active-contracts',
        token: await this.http.token(),
        request,
      });
    }
    return (Array.isArray(answer) ? answer : []).flatMap((item) => {
      const entry = item.contractEntry as { JsActiveContract?: { createdEvent?: CreatedEvent } };
      const event = entry?.JsActiveContract?.createdEvent;
      return event === undefined ? [] : [event];
    });
  }

  /** The ACS-delta transactions of `party`'s `interfaceId` contracts in the offsets between. */
  activeSetChanges(
    party: string,
    interfaceId: string,
    beginExclusive: Offset,
    endInclusive: Offset,
  ): Promise<JsGetUpdatesResponse[]> {
    return this.updatesList(
      activeSetChangesRequest(beginExclusive, endInclusive, party, interfaceId),
    );
  }

  /** The updates items of `(beginExclusive, endInclusive]` in `scope`. */
  updatesBetween(
    beginExclusive: Offset,
    endInclusive: Offset,
    scope: PartyScope,
  ): Promise<JsGetUpdatesResponse[]> {
    return this.updatesList(updatesRequest(beginExclusive, scope, endInclusive));
  }

  /** The updates items a bounded `/v2/updates` request answers over HTTP. */
  private async updatesList(request: GetUpdatesRequest): Promise<JsGetUpdatesResponse[]> {
    const items = await this.http.post<JsGetUpdatesResponse[]>(this.url('/v2/updates'), request, {
      kind: 'read',
    });
    return Array.isArray(items) ? items : [];
  }

  /** The transaction at `offset` as `party` sees it, or null. */
  async transactionAt(offset: Offset, party: string): Promise<JsTransaction | null> {
    const items = await this.updatesBetween(offset - 1, offset, {
      kind: 'parties',
      parties: [party],
    });
    for (const item of items) {
      const transaction = transactionOf(item);
      if (transaction?.offset === offset) return transaction;
    }
    return null;
  }

  /** One page of this user's completions for `parties` after `beginExclusive`. */
  async completionsPage(
    beginExclusive: Offset,
    parties: readonly string[],
  ): Promise<CompletionStreamResponse[]> {
    while (true) {
      const query = `limit=${this.completionsLimit}&stream_idle_timeout_ms=${COMPLETIONS_IDLE_MS}`;
      try {
        const page = await this.http.post<CompletionStreamResponse[]>(
          this.url(`/v2/commands/completions?${query}`),
          { userId: this.userId, parties: [...parties], beginExclusive },
          { kind: 'read' },
        );
        return Array.isArray(page) ? page : [];
      } catch (error) {
        // A participant ignores a limit above its own list limit and then refuses the list.
        if (!isTooLarge(error) || this.completionsLimit === 1) throw error;
        this.completionsLimit = Math.floor(this.completionsLimit / 2);
      }
    }
  }

  /** An instruction's created event by contract id (archived ones too), when `scope` sees it. */
  async instructionEvent(offerId: string, scope: PartyScope): Promise<CreatedEvent | undefined> {
    try {
      const answer = await this.http.post<JsGetEventsByContractIdResponse>(
        this.url('/v2/events/events-by-contract-id'),
        {
          contractId: offerId,
          eventFormat: eventFormat(scope, [interfaceFilter(TRANSFER_INSTRUCTION_INTERFACE_ID)]),
        },
        { kind: 'read' },
      );
      return answer.created?.createdEvent;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** An allocation's created event, with its `Allocation` view; undefined when not visible. */
  async allocationEvent(
    allocationId: string,
    scope: PartyScope,
  ): Promise<CreatedEvent | undefined> {
    try {
      const answer = await this.http.post<JsGetEventsByContractIdResponse>(
        this.url('/v2/events/events-by-contract-id'),
        {
          contractId: allocationId,
          eventFormat: eventFormat(scope, [interfaceFilter(ALLOCATION_INTERFACE_ID)]),
        },
        { kind: 'read' },
      );
      return answer.created?.createdEvent;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /**
   * Submits `commands` and answers the committed transaction: through the user's rights, or,
   * for an external party, prepared here and signed by the party's own key.
   */
  async submitAndWaitForTransaction(input: {
    readonly commands: JsCommands;
    readonly transactionFormat: TransactionFormat;
    readonly kind: Extract<RequestKind, 'submit' | 'offer'>;
    readonly timeoutMs: number;
    /** The external acting parties' keys; none: a plain submission through the user's rights. */
    readonly externalSigners: readonly PartySigner[];
  }): Promise<JsTransaction> {
    const { commands, transactionFormat, kind, timeoutMs, externalSigners } = input;
    if (externalSigners.length > 0) {
      return submitExternally(this.http, this.ledgerApiUrl, {
        commands,
        signers: externalSigners,
        userId: this.userId,
        transactionFormat,
        timeoutMs,
        kind,
      });
    }
    const answer = await this.http.post<{ transaction?: JsTransaction }>(
      this.url('/v2/commands/submit-and-wait-for-transaction'),
      { commands, transactionFormat },
      { kind, timeoutMs },
    );
    if (answer.transaction === undefined) {
      throw new LedgerError('timeout', `${commands.commandId} committed without its transaction`);
    }
    return answer.transaction;
  }

  private url(path: string): string {
    return joinUrl(this.ledgerApiUrl, path);
  }
}
