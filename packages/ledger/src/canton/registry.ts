/**
 * The Token Standard registries (transfer-instruction-v1 and token-metadata-v1 off-ledger APIs):
 * where a transfer's factory and every choice's context come from, and which instruments exist.
 * Each instrument admin runs its own registry; `byAdmin` names them, the default covers the rest.
 */
import type { Instrument } from '@poolparty/core';
import { LedgerError } from '../port.js';
import { CantonRequestError } from './errors.js';
import { type JsonHttpClient, joinUrl } from './http.js';
import type { DisclosedContract } from './wire/index.js';

export interface Registries {
  readonly defaultUrl: string;
  readonly byAdmin?: Readonly<Record<string, string>>;
}

export function registryUrlOf(registries: Registries, admin: string): string {
  return registries.byAdmin?.[admin] ?? registries.defaultUrl;
}

/** Every distinct registry base: the default and each admin's. */
export function registryUrls(registries: Registries): readonly string[] {
  return [...new Set([registries.defaultUrl, ...Object.values(registries.byAdmin ?? {})])];
}

/** A choice context as a registry serves it (`ChoiceContext` of transfer-instruction-v1). */
export interface ChoiceContext {
  readonly choiceContextData: Readonly<Record<string, unknown>>;
  readonly disclosedContracts: readonly RegistryDisclosedContract[];
}

export interface RegistryDisclosedContract {
  readonly templateId: string;
  readonly contractId: string;
  readonly createdEventBlob: string;
  readonly synchronizerId: string;
}

export interface TransferFactoryWithChoiceContext {
  readonly factoryId: string;
  readonly transferKind: 'self' | 'direct' | 'offer';
  readonly choiceContext: ChoiceContext;
}

export type InstructionChoice = 'accept' | 'reject' | 'withdraw';

/** An allocation factory and the context of `AllocationFactory_Allocate` (allocation-instruction-v1). */
export interface AllocationFactoryWithChoiceContext {
  readonly factoryId: string;
  readonly choiceContext: ChoiceContext;
}

/** The allocation-v1 choice-context paths: `Allocation_ExecuteTransfer`, `_Withdraw`, `_Cancel`. */
export type AllocationAction = 'execute-transfer' | 'withdraw' | 'cancel';

/** The disclosed contracts of a choice context, as a command carries them (debug fields dropped). */
export function disclosedContractsOf(context: ChoiceContext): DisclosedContract[] {
  return context.disclosedContracts.map(
    ({ templateId, contractId, createdEventBlob, synchronizerId }) => ({
      templateId,
      contractId,
      createdEventBlob,
      synchronizerId,
    }),
  );
}

function checkChoiceContext(value: unknown, what: string): ChoiceContext {
  const context = value as Partial<ChoiceContext> | null;
  if (
    typeof context?.choiceContextData !== 'object' ||
    context.choiceContextData === null ||
    !Array.isArray(context.disclosedContracts)
  ) {
    throw new LedgerError('rejected', `${what}: the registry answered without a choice context`);
  }
  return context as ChoiceContext;
}

/**
 * A registry 404 names what the request was about: the instruction of a choice context, or the
 * instrument (or its admin) of a transfer factory.
 */
function notFoundAs(
  error: unknown,
  code: 'offer_not_found' | 'unknown_instrument' | 'allocation_not_found',
): unknown {
  return isStatus(error, 404) ? new LedgerError(code, (error as Error).message) : error;
}

function isStatus(error: unknown, status: number): boolean {
  return (
    error instanceof CantonRequestError &&
    error.failure.kind === 'status' &&
    error.failure.status === status
  );
}

/** What a choice-context read sends: no metadata, and no debug fields back. */
const CONTEXT_REQUEST = { meta: {}, excludeDebugFields: true } as const;

export class RegistryClient {
  constructor(
    private readonly http: JsonHttpClient,
    private readonly registries: Registries,
    /** Whether a registry base gets the ledger token (only our own participant's services). */
    private readonly trusted: (baseUrl: string) => boolean,
  ) {}

  transferFactory(
    admin: string,
    choiceArguments: Readonly<Record<string, unknown>>,
  ): Promise<TransferFactoryWithChoiceContext> {
    return this.factory<TransferFactoryWithChoiceContext>(
      admin,
      '/registry/transfer-instruction/v1/transfer-factory',
      choiceArguments,
      `transfer factory of ${admin}`,
    );
  }

  async choiceContext(
    admin: string,
    offerId: string,
    choice: InstructionChoice,
  ): Promise<ChoiceContext> {
    const path = `/registry/transfer-instruction/v1/${encodeURIComponent(offerId)}/choice-contexts/${choice}`;
    const what = `${choice} context of ${offerId}`;
    const answer = await this.read<ChoiceContext>(
      admin,
      path,
      CONTEXT_REQUEST,
      what,
      'offer_not_found',
    );
    return checkChoiceContext(answer, what);
  }

  allocationFactory(
    admin: string,
    choiceArguments: Readonly<Record<string, unknown>>,
  ): Promise<AllocationFactoryWithChoiceContext> {
    return this.factory<AllocationFactoryWithChoiceContext>(
      admin,
      '/registry/allocation-instruction/v1/allocation-factory',
      choiceArguments,
      `allocation factory of ${admin}`,
    );
  }

  async allocationContext(
    admin: string,
    allocationId: string,
    action: AllocationAction,
  ): Promise<ChoiceContext> {
    const path = `/registry/allocations/v1/${encodeURIComponent(allocationId)}/choice-contexts/${action}`;
    const what = `${action} context of ${allocationId}`;
    const answer = await this.read<ChoiceContext>(
      admin,
      path,
      CONTEXT_REQUEST,
      what,
      'allocation_not_found',
    );
    return checkChoiceContext(answer, what);
  }

  /** A factory and its choice context; a registry that names no factory is refused. */
  private async factory<F extends { factoryId: string; choiceContext: ChoiceContext }>(
    admin: string,
    path: string,
    choiceArguments: Readonly<Record<string, unknown>>,
    what: string,
  ): Promise<F> {
    const body = { choiceArguments, excludeDebugFields: true };
    const answer = await this.read<F>(admin, path, body, what, 'unknown_instrument');
    if (typeof answer?.factoryId !== 'string') {
      throw new LedgerError('rejected', `${what}: the registry answered without a factoryId`);
    }
    return { ...answer, choiceContext: checkChoiceContext(answer.choiceContext, what) };
  }

  /** One registry read of the admin's registry; its 404 is the port's `notFound` error. */
  private read<T>(
    admin: string,
    path: string,
    body: Readonly<Record<string, unknown>>,
    what: string,
    notFound: Parameters<typeof notFoundAs>[1],
  ): Promise<T> {
    const base = registryUrlOf(this.registries, admin);
    return this.http
      .post<T>(joinUrl(base, path), body, { kind: 'read', what, authenticated: this.trusted(base) })
      .catch((error: unknown) => {
        throw notFoundAs(error, notFound);
      });
  }

  /** The instruments of every configured registry, each under the admin its registry names. */
  async instruments(): Promise<readonly Instrument[]> {
    const lists = await Promise.all(
      registryUrls(this.registries).map((base) => this.instrumentsOf(base)),
    );
    const seen = new Map<string, Instrument>();
    for (const instrument of lists.flat()) {
      seen.set(`${instrument.id}@${instrument.admin}`, instrument);
    }
    return [...seen.values()];
  }

  private async instrumentsOf(base: string): Promise<Instrument[]> {
    const authenticated = this.trusted(base);
    let info: { adminId?: unknown };
    try {
      info = await this.http.get<{ adminId?: unknown }>(
        joinUrl(base, '/registry/metadata/v1/info'),
        { kind: 'read', authenticated },
      );
    } catch (error) {
      // A registry that is not (yet) there lists nothing; the others still count.
      if (isStatus(error, 404)) return [];
      throw error;
    }
    if (typeof info.adminId !== 'string') {
      throw new LedgerError('rejected', `the registry at ${base} names no adminId`);
    }
    const admin = info.adminId;
    const instruments: Instrument[] = [];
    let pageToken: string | undefined;
    // Bounded: a registry that keeps answering with a next page cannot loop us forever.
    for (let page = 0; page < 1000; page += 1) {
      const query = new URLSearchParams({ pageSize: '100' });
      if (pageToken !== undefined) query.set('pageToken', pageToken);
      const answer = await this.http.get<{ instruments?: unknown; nextPageToken?: unknown }>(
        joinUrl(base, `/registry/metadata/v1/instruments?${query}`),
        { kind: 'read', authenticated },
      );
      const list = Array.isArray(answer.instruments) ? answer.instruments : [];
      for (const entry of list) {
        const id = (entry as { id?: unknown }).id;
        if (typeof id === 'string' && id.length > 0) instruments.push({ admin, id });
      }
      if (typeof answer.nextPageToken !== 'string' || answer.nextPageToken.length === 0) break;
      pageToken = answer.nextPageToken;
    }
    return instruments;
  }
}
