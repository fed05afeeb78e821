/**
 * The participant's administrative reads: version, ledger end, synchronizers, parties and users.
 */
import type { PartyInfo } from '@poolparty/ledger';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalidArgument, permissionDenied } from './canton-errors.js';
import { type ServerContext, userOf } from './context.js';
import { registerRoutes, routeOf } from './http/route-table.js';
import { LEDGER_API_VERSION, SYNCHRONIZER_ALIAS, SYNCHRONIZER_ID } from './identity.js';
import {
  arrayAt,
  objectAt,
  offsetAt,
  optionalOffsetAt,
  optionalStringAt,
  stringAt,
} from './request-body.js';
import { parseRight, type Right, type UserDirectory, userNotFound } from './users.js';

const PAGE_SIZE_MAX = 10_000;

/**
 * What a party looks like in `PartyDetails`: local, as this participant hosts every party the
 * devnet has, the external ones (with their own keys) as much as the internal ones.
 */
function partyDetails(party: PartyInfo) {
  return { party: party.partyId, isLocal: true, identityProviderId: '' };
}

function userJson(users: UserDirectory, userId: string) {
  const primaryParty = users.primaryPartyOf(userId);
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

/** Only the participant's administrator (the default user) may do `what`. */
function requireAdministrator({ users }: ServerContext, request: FastifyRequest, what: string) {
  if (userOf(request) !== users.defaultUser) {
    throw permissionDenied(`only the participant administrator ${what}`);
  }
}

/** Only the user itself reads itself; the default user administers the participant. */
function requireUserAccess({ users }: ServerContext, request: FastifyRequest, userId: string) {
  const caller = userOf(request);
  if (caller !== userId && caller !== users.defaultUser) {
    throw permissionDenied(`user ${caller} may not read or change user ${userId}`);
  }
  if (!users.exists(userId)) throw userNotFound(userId);
}

type UserParams = { Params: { userId: string } };

const participantRoute = routeOf<ServerContext>();

const getVersion = participantRoute({
  method: 'GET',
  url: '/v2/version',
  handler: async ({ checkpointIntervalMs }) => ({
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
          seconds: Math.floor(checkpointIntervalMs / 1000),
          nanos: (checkpointIntervalMs % 1000) * 1_000_000,
        },
      },
      packageFeature: { maxVettedPackagesPageSize: 100 },
    },
  }),
});

const getLedgerEnd = participantRoute({
  method: 'GET',
  url: '/v2/state/ledger-end',
  handler: async ({ ledger }) => ({ offset: await ledger.ledgerEnd() }),
});

/** The devnet never prunes. */
const getLatestPrunedOffsets = participantRoute({
  method: 'GET',
  url: '/v2/state/latest-pruned-offsets',
  handler: async () => ({
    participantPrunedUpToInclusive: 0,
    allDivulgedContractsPrunedUpToInclusive: 0,
  }),
});

const getConnectedSynchronizers = participantRoute({
  method: 'GET',
  url: '/v2/state/connected-synchronizers',
  handler: async () => ({
    connectedSynchronizers: [
      {
        synchronizerAlias: SYNCHRONIZER_ALIAS,
        synchronizerId: SYNCHRONIZER_ID,
        permission: 'PARTICIPANT_PERMISSION_SUBMISSION',
      },
    ],
  }),
});

const getParticipantId = participantRoute({
  method: 'GET',
  url: '/v2/parties/participant-id',
  handler: async (ctx) => ({ participantId: ctx.participantId }),
});

/**
 * `filter-party` keeps the parties whose id starts with it; pages are by position, the token
 * being the next position (empty on the last page).
 */
const listParties = participantRoute<{
  Querystring: { 'filter-party'?: string; pageSize?: string; pageToken?: string };
}>({
  method: 'GET',
  url: '/v2/parties',
  handler: async ({ ledger }, request) => {
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
  },
});

/** Canton answers the known ones among `party` and the `parties` query, and leaves out the rest. */
const getParties = participantRoute<{
  Params: { party: string };
  Querystring: { parties?: string | string[] };
}>({
  method: 'GET',
  url: '/v2/parties/:party',
  handler: async ({ ledger }, request) => {
    const extra = request.query.parties;
    const wanted = [request.params.party, ...(Array.isArray(extra) ? extra : extra ? [extra] : [])];
    const known: PartyInfo[] = [];
    for (const partyId of new Set(wanted)) {
      const party = await ledger.getParty(partyId);
      if (party) known.push(party);
    }
    return { partyDetails: known.map(partyDetails) };
  },
});

/**
 * Allocates an internal party (hosted with the participant's keys), as `POST /v2/parties` does;
 * a hint already taken answers the existing party, as the local ledger does.
 */
const allocateParty = participantRoute({
  method: 'POST',
  url: '/v2/parties',
  handler: async (ctx, request) => {
    requireAdministrator(ctx, request, 'allocates parties');
    const body = objectAt(request.body, 'body');
    const hint = stringAt(body.partyIdHint, 'partyIdHint');
    const userId = optionalStringAt(body.userId, 'userId');
    if (userId !== undefined && !ctx.users.exists(userId)) throw userNotFound(userId);
    let partyId: string;
    try {
      ({ partyId } = await ctx.ledger.createParty({ hint }));
    } catch (error) {
      if (error instanceof RangeError)
        throw invalidArgument(error.message, { field: 'partyIdHint' });
      throw error;
    }
    if (userId !== undefined) {
      await ctx.users.grant(userId, [{ kind: { CanActAs: { value: { party: partyId } } } }]);
    }
    return { partyDetails: partyDetails({ partyId, kind: 'internal' }) };
  },
});

const getAuthenticatedUser = participantRoute({
  method: 'GET',
  url: '/v2/authenticated-user',
  handler: async ({ users }, request) => ({ user: userJson(users, userOf(request)) }),
});

const listUsers = participantRoute({
  method: 'GET',
  url: '/v2/users',
  handler: async (ctx, request) => {
    requireAdministrator(ctx, request, 'lists users');
    return { users: ctx.users.list().map((id) => userJson(ctx.users, id)), nextPageToken: '' };
  },
});

const createUser = participantRoute({
  method: 'POST',
  url: '/v2/users',
  handler: async (ctx, request) => {
    requireAdministrator(ctx, request, 'creates users');
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
    await ctx.users.create(userId, parseRights(body.rights));
    if (primaryParty !== '') ctx.users.setPrimaryParty(userId, primaryParty);
    return { user: userJson(ctx.users, userId) };
  },
});

const getUser = participantRoute<UserParams>({
  method: 'GET',
  url: '/v2/users/:userId',
  handler: async (ctx, request) => {
    requireUserAccess(ctx, request, request.params.userId);
    return { user: userJson(ctx.users, request.params.userId) };
  },
});

const listUserRights = participantRoute<UserParams>({
  method: 'GET',
  url: '/v2/users/:userId/rights',
  handler: async (ctx, request) => {
    requireUserAccess(ctx, request, request.params.userId);
    return { rights: await ctx.users.rightsOf(request.params.userId) };
  },
});

const grantUserRights = participantRoute<UserParams>({
  method: 'POST',
  url: '/v2/users/:userId/rights',
  handler: async (ctx, request) => {
    const { userId } = request.params;
    requireAdministrator(ctx, request, 'grants rights');
    const body = objectAt(request.body, 'body');
    if (body.userId !== undefined && body.userId !== userId) {
      throw invalidArgument(`userId ${String(body.userId)} differs from the path's ${userId}`);
    }
    const rights = parseRights(body.rights);
    if (!ctx.users.exists(userId)) throw userNotFound(userId);
    return { newlyGrantedRights: await ctx.users.grant(userId, rights) };
  },
});

const PARTICIPANT_ROUTES = [
  getVersion,
  getLedgerEnd,
  getLatestPrunedOffsets,
  getConnectedSynchronizers,
  getParticipantId,
  listParties,
  getParties,
  allocateParty,
  getAuthenticatedUser,
  listUsers,
  createUser,
  getUser,
  listUserRights,
  grantUserRights,
];

export async function participantRoutes(app: FastifyInstance, ctx: ServerContext): Promise<void> {
  registerRoutes(app, ctx, PARTICIPANT_ROUTES);
}
