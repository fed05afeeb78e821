/**
 * The participant's administrative reads: version, ledger end, synchronizers, parties and users.
 */
import type { PartyInfo } from '@poolparty/ledger';
import type { FastifyInstance } from 'fastify';
import { invalidArgument, permissionDenied } from './canton-errors.js';
import { type ServerContext, userOf } from './context.js';
import {
  LEDGER_API_VERSION,
  PARTICIPANT_ID,
  SYNCHRONIZER_ALIAS,
  SYNCHRONIZER_ID,
} from './identity.js';
import {
  arrayAt,
  objectAt,
  offsetAt,
  optionalOffsetAt,
  optionalStringAt,
  stringAt,
} from './request-body.js';
import { parseRight, type Right, userNotFound } from './users.js';

const PAGE_SIZE_MAX = 10_000;

/** What a party looks like in `PartyDetails`: local when this participant hosts it. */
function partyDetails(party: PartyInfo) {
  return { party: party.partyId, isLocal: party.kind === 'internal', identityProviderId: '' };
}

function userJson(userId: string, primaryParty = '') {
  return { id: userId, primaryParty, isDeactivated: false, identityProviderId: '' };
}

function parseRights(value: unknown): Right[] {
  const rights: Right[] = [];
  for (const [index, input] of arrayAt(value ?? [], 'rights').entries()) {
    const right = parseRight(input);
    if (right === null) {
      throw invalidArgument(
        `rights[${index}] is not a right this participant grants (CanActAs, CanReadAs, CanExecuteAs, CanReadAsAnyParty, CanExecuteAsAnyParty, ParticipantAdmin, IdentityProviderAdmin)`,
        { field: `rights[${index}]` },
      );
    }
    rights.push(right);
  }
  return rights;
}

export async function participantRoutes(app: FastifyInstance, ctx: ServerContext): Promise<void> {
  const { ledger, users } = ctx;
  /** The primary party each created user was given (wallet providers read it back). */
  const primaryParties = new Map<string, string>();
  const user = (userId: string) => userJson(userId, primaryParties.get(userId));

  app.get('/v2/version', async () => ({
    version: LEDGER_API_VERSION,
    features: {
      experimental: {
        staticTime: { supported: false },
        commandInspectionService: { supported: false },
      },
      userManagement: { supported: true, maxRightsPerUser: 1000, maxUsersPageSize: 1000 },
      partyManagement: { maxPartiesPageSize: PAGE_SIZE_MAX },
      offsetCheckpoint: {
        maxOffsetCheckpointEmissionDelay: {
          seconds: Math.floor(ctx.checkpointIntervalMs / 1000),
          nanos: (ctx.checkpointIntervalMs % 1000) * 1_000_000,
        },
      },
      packageFeature: { maxVettedPackagesPageSize: 100 },
    },
  }));

  app.get('/v2/state/ledger-end', async () => ({ offset: await ledger.ledgerEnd() }));

  // The devnet never prunes.
  app.get('/v2/state/latest-pruned-offsets', async () => ({
    participantPrunedUpToInclusive: 0,
    allDivulgedContractsPrunedUpToInclusive: 0,
  }));

  app.get('/v2/state/connected-synchronizers', async () => ({
    connectedSynchronizers: [
      {
        synchronizerAlias: SYNCHRONIZER_ALIAS,
        synchronizerId: SYNCHRONIZER_ID,
        permission: 'PARTICIPANT_PERMISSION_SUBMISSION',
      },
    ],
  }));

  app.get('/v2/parties/participant-id', async () => ({ participantId: PARTICIPANT_ID }));

  // `filter-party` keeps the parties whose id starts with it; pages are by position, the token
  // being the next position (empty on the last page).
  app.get<{
    Querystring: { 'filter-party'?: string; pageSize?: string; pageToken?: string };
  }>('/v2/parties', async (request) => {
    const { 'filter-party': filter, pageSize, pageToken } = request.query;
    const size = optionalOffsetAt(pageSize, 'pageSize') || PAGE_SIZE_MAX;
    const start = pageToken ? offsetAt(pageToken, 'pageToken') : 0;
    const parties = await ledger.listParties();
    const listed = filter ? parties.filter((p) => p.partyId.startsWith(filter)) : parties;
    const next = start + Math.min(size, PAGE_SIZE_MAX);
    return {
      partyDetails: listed.slice(start, next).map(partyDetails),
      nextPageToken: next < listed.length ? String(next) : '',
    };
  });

  // Canton answers the known ones among `party` and the `parties` query, and leaves out the rest.
  app.get<{ Params: { party: string }; Querystring: { parties?: string | string[] } }>(
    '/v2/parties/:party',
    async (request) => {
      const extra = request.query.parties;
      const wanted = [
        request.params.party,
        ...(Array.isArray(extra) ? extra : extra ? [extra] : []),
      ];
      const known: PartyInfo[] = [];
      for (const partyId of new Set(wanted)) {
        const party = await ledger.getParty(partyId);
        if (party) known.push(party);
      }
      return { partyDetails: known.map(partyDetails) };
    },
  );

  // Allocates an internal party (hosted with the participant's keys), as `POST /v2/parties`
  // does; a hint already taken answers the existing party, as the local ledger does.
  app.post('/v2/parties', async (request) => {
    if (userOf(request) !== users.defaultUser) {
      throw permissionDenied('only the participant administrator allocates parties');
    }
    const body = objectAt(request.body, 'body');
    const hint = stringAt(body.partyIdHint, 'partyIdHint');
    const userId = optionalStringAt(body.userId, 'userId');
    if (userId !== undefined && !users.exists(userId)) throw userNotFound(userId);
    let partyId: string;
    try {
      ({ partyId } = await ledger.createParty({ hint }));
    } catch (error) {
      if (error instanceof RangeError)
        throw invalidArgument(error.message, { field: 'partyIdHint' });
      throw error;
    }
    if (userId !== undefined) {
      await users.grant(userId, [{ kind: { CanActAs: { value: { party: partyId } } } }]);
    }
    return { partyDetails: partyDetails({ partyId, kind: 'internal' }) };
  });

  app.get('/v2/authenticated-user', async (request) => ({ user: user(userOf(request)) }));

  /** Only the user itself reads itself; the default user administers the participant. */
  const requireUserAccess = (request: Parameters<typeof userOf>[0], userId: string) => {
    const caller = userOf(request);
    if (caller !== userId && caller !== users.defaultUser) {
      throw permissionDenied(`user ${caller} may not read or change user ${userId}`);
    }
    if (!users.exists(userId)) throw userNotFound(userId);
  };

  app.get('/v2/users', async (request) => {
    if (userOf(request) !== users.defaultUser) {
      throw permissionDenied('only the participant administrator lists users');
    }
    return { users: users.list().map(user), nextPageToken: '' };
  });

  app.post('/v2/users', async (request) => {
    if (userOf(request) !== users.defaultUser) {
      throw permissionDenied('only the participant administrator creates users');
    }
    const body = objectAt(request.body, 'body');
    const created = objectAt(body.user, 'user');
    const userId = stringAt(created.id, 'user.id');
    if (!/^[a-zA-Z0-9@^$.!`\-#+'~_|:()]{1,128}$/.test(userId)) {
      throw invalidArgument(`user.id ${userId} is not a valid user id`, { field: 'user.id' });
    }
    const primaryParty = created.primaryParty ?? '';
    if (typeof primaryParty !== 'string') {
      throw invalidArgument('user.primaryParty must be a party id or empty', {
        field: 'user.primaryParty',
      });
    }
    await users.create(userId, parseRights(body.rights));
    if (primaryParty !== '') primaryParties.set(userId, primaryParty);
    return { user: user(userId) };
  });

  app.get<{ Params: { userId: string } }>('/v2/users/:userId', async (request) => {
    requireUserAccess(request, request.params.userId);
    return { user: user(request.params.userId) };
  });

  app.get<{ Params: { userId: string } }>('/v2/users/:userId/rights', async (request) => {
    requireUserAccess(request, request.params.userId);
    return { rights: await users.rightsOf(request.params.userId) };
  });

  app.post<{ Params: { userId: string } }>('/v2/users/:userId/rights', async (request) => {
    const { userId } = request.params;
    if (userOf(request) !== users.defaultUser) {
      throw permissionDenied('only the participant administrator grants rights');
    }
    const body = objectAt(request.body, 'body');
    if (body.userId !== undefined && body.userId !== userId) {
      throw invalidArgument(`userId ${String(body.userId)} differs from the path's ${userId}`);
    }
    const rights = parseRights(body.rights);
    if (!users.exists(userId)) throw userNotFound(userId);
    return { newlyGrantedRights: await users.grant(userId, rights) };
  });
}
