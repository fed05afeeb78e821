/**
 * Ledger API users and their rights. The devnet starts with one user, the service's (`poolparty` unless
 * configured otherwise): it may act as every internal party (those the participant hosts with
 * its own keys), read as any party and execute prepared transactions for any party. More users
 * can be created (`POST /v2/users`), with the rights granted to them. External parties are never acted for directly: they
 * sign their own submissions (interactive submission), as on Canton.
 *
 * Rights granted through `POST /v2/users/{id}/rights` are kept in memory for the life of the
 * server; the implicit ones follow the ledger's parties as they are created.
 */
import type { LocalLedger, PartyInfo } from '@poolparty/ledger';
import { CantonApiError, permissionDenied } from './canton-errors.js';

type PartyRight = { readonly value: { readonly party: string } };
type AnyPartyRight = { readonly value: Record<string, never> };

export type Right =
  | { readonly kind: { readonly CanActAs: PartyRight } }
  | { readonly kind: { readonly CanReadAs: PartyRight } }
  | { readonly kind: { readonly CanExecuteAs: PartyRight } }
  | { readonly kind: { readonly CanReadAsAnyParty: AnyPartyRight } }
  | { readonly kind: { readonly CanExecuteAsAnyParty: AnyPartyRight } }
  | { readonly kind: { readonly ParticipantAdmin: AnyPartyRight } }
  | { readonly kind: { readonly IdentityProviderAdmin: AnyPartyRight } };

/** The rights a user of this participant can hold, by their name in `Right.kind`. */
const PARTY_RIGHTS = new Set(['CanActAs', 'CanReadAs', 'CanExecuteAs']);
/**
 * Rights without a party. The admin rights are kept and listed but give no reading or acting:
 * Canton's core-ledger-client grants ParticipantAdmin to every user it creates.
 */
const ANY_PARTY_RIGHTS = new Set([
  'CanReadAsAnyParty',
  'CanExecuteAsAnyParty',
  'ParticipantAdmin',
  'IdentityProviderAdmin',
]);

export const DEFAULT_USER = 'poolparty';

export const userNotFound = (userId: string) =>
  new CantonApiError(
    'USER_NOT_FOUND',
    'InvalidGivenCurrentSystemStateResourceMissing',
    `cannot find user ${userId}`,
    { user_id: userId },
  );

const canActAs = (party: string): Right => ({ kind: { CanActAs: { value: { party } } } });
const canReadAs = (party: string): Right => ({ kind: { CanReadAs: { value: { party } } } });
const canExecuteAs = (party: string): Right => ({ kind: { CanExecuteAs: { value: { party } } } });
const CAN_READ_AS_ANY_PARTY: Right = { kind: { CanReadAsAnyParty: { value: {} } } };
const CAN_EXECUTE_AS_ANY_PARTY: Right = { kind: { CanExecuteAsAnyParty: { value: {} } } };

const userAlreadyExists = (userId: string) =>
  new CantonApiError(
    'USER_ALREADY_EXISTS',
    'InvalidGivenCurrentSystemStateResourceExists',
    `user ${userId} already exists`,
    { user_id: userId },
  );

function rightKey(right: Right): string {
  return JSON.stringify(right.kind);
}

/** A right from a request body, or null when it is not one this participant grants. */
export function parseRight(input: unknown): Right | null {
  const kind = (input as { kind?: Record<string, { value?: { party?: unknown } }> } | null)?.kind;
  if (typeof kind !== 'object' || kind === null) return null;
  const entries = Object.entries(kind);
  if (entries.length !== 1) return null;
  const [name, body] = entries[0] as [string, { value?: { party?: unknown } }];
  const party = body?.value?.party;
  if (PARTY_RIGHTS.has(name) && typeof party === 'string') {
    return { kind: { [name]: { value: { party } } } } as Right;
  }
  if (ANY_PARTY_RIGHTS.has(name)) return { kind: { [name]: { value: {} } } } as Right;
  return null;
}

export class UserDirectory {
  private readonly granted = new Map<string, Map<string, Right>>();
  /** The primary party each created user was given (wallet providers read it back). */
  private readonly primaryParties = new Map<string, string>();

  constructor(
    private readonly ledger: LocalLedger,
    readonly defaultUser: string = DEFAULT_USER,
  ) {
    this.granted.set(defaultUser, new Map());
  }

  exists(userId: string): boolean {
    return this.granted.has(userId);
  }

  /** Every user, in the order they were created (the default user first). */
  list(): readonly string[] {
    return [...this.granted.keys()];
  }

  /** Creates a user with these rights; an existing id is USER_ALREADY_EXISTS. */
  async create(userId: string, rights: readonly Right[]): Promise<void> {
    if (this.granted.has(userId)) throw userAlreadyExists(userId);
    this.granted.set(userId, new Map());
    await this.grant(userId, rights);
  }

  /** The user's primary party; empty when it has none. */
  primaryPartyOf(userId: string): string {
    return this.primaryParties.get(userId) ?? '';
  }

  setPrimaryParty(userId: string, party: string): void {
    this.primaryParties.set(userId, party);
  }

  /** Every right of the user: the implicit ones, then those granted since. */
  async rightsOf(userId: string): Promise<readonly Right[]> {
    const granted = this.granted.get(userId);
    if (granted === undefined) throw userNotFound(userId);
    const implicit: Right[] = [];
    if (userId === this.defaultUser) {
      const parties: readonly PartyInfo[] = await this.ledger.listParties();
      for (const party of parties) {
        if (party.kind === 'internal') implicit.push(canActAs(party.partyId));
      }
      implicit.push(CAN_READ_AS_ANY_PARTY, CAN_EXECUTE_AS_ANY_PARTY);
    }
    const keys = new Set(implicit.map(rightKey));
    return [...implicit, ...[...granted.values()].filter((right) => !keys.has(rightKey(right)))];
  }

  /** Grants the rights; answers those the user did not have yet (Canton's `newlyGrantedRights`). */
  async grant(userId: string, rights: readonly Right[]): Promise<readonly Right[]> {
    const had = new Set((await this.rightsOf(userId)).map(rightKey));
    const granted = this.granted.get(userId) as Map<string, Right>;
    const fresh: Right[] = [];
    for (const right of rights) {
      const key = rightKey(right);
      if (had.has(key)) continue;
      had.add(key);
      granted.set(key, right);
      fresh.push(right);
    }
    return fresh;
  }

  /**
   * Refuses unless the user may act as every party in `actAs`. External parties never pass:
   * only their own signature submits for them.
   */
  async requireActAs(userId: string, actAs: readonly string[]): Promise<void> {
    const rights = await this.rightsOrDenied(userId);
    for (const party of actAs) {
      const info = await this.ledger.getParty(party);
      if (info?.kind === 'external') {
        throw permissionDenied(
          `${party} is an external party: submit through /v2/interactive-submission with its signature`,
        );
      }
      if (!rights.has(rightKey(canActAs(party)))) {
        throw permissionDenied(`user ${userId} may not act as ${party}`);
      }
    }
  }

  /** Refuses unless the user may read as every party in `parties`. */
  async requireReadAs(userId: string, parties: readonly string[]): Promise<void> {
    const rights = await this.rightsOrDenied(userId);
    if (rights.has(rightKey(CAN_READ_AS_ANY_PARTY))) return;
    for (const party of parties) {
      const reads = rights.has(rightKey(canActAs(party))) || rights.has(rightKey(canReadAs(party)));
      if (!reads) throw permissionDenied(`user ${userId} may not read as ${party}`);
    }
  }

  /**
   * Refuses unless the user may execute a prepared transaction for every party: CanExecuteAs or
   * CanActAs it, or CanExecuteAsAnyParty.
   */
  async requireExecuteAs(userId: string, parties: readonly string[]): Promise<void> {
    const rights = await this.rightsOrDenied(userId);
    if (rights.has(rightKey(CAN_EXECUTE_AS_ANY_PARTY))) return;
    for (const party of parties) {
      if (!rights.has(rightKey(canExecuteAs(party))) && !rights.has(rightKey(canActAs(party)))) {
        throw permissionDenied(`user ${userId} may not execute as ${party}`);
      }
    }
  }

  /** Refuses unless the user may read as any party (`filtersForAnyParty`). */
  async requireReadAsAnyParty(userId: string): Promise<void> {
    const rights = await this.rightsOrDenied(userId);
    if (!rights.has(rightKey(CAN_READ_AS_ANY_PARTY))) {
      throw permissionDenied(`user ${userId} may not read as any party`);
    }
  }

  /** A user the token names but the participant does not know has no rights at all. */
  private async rightsOrDenied(userId: string): Promise<ReadonlySet<string>> {
    if (!this.exists(userId)) throw permissionDenied(`unknown user ${userId}`);
    return new Set((await this.rightsOf(userId)).map(rightKey));
  }
}
