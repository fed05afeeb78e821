/**
 * The participant's reads and its user model: version, ledger end, synchronizers, parties, users
 * and rights, and bearer authentication when a secret is set.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { transferSubmission } from './support/commands.js';
import { expectCantonError, expectSchema, sharedWorld, tokenFor } from './support/server.js';

describe('devnet ledger server without auth', () => {
  const world = sharedWorld();

  it('reports its version and features', async () => {
    const answer = await world.get('/v2/version');
    expect(answer.status).toBe(200);
    expect(answer.body.version).toBe('3.4.12');
    expectSchema('ledger', 'GetLedgerApiVersionResponse', answer.body);
  });

  it('reports the ledger end as the offset of the latest update', async () => {
    const answer = await world.get('/v2/state/ledger-end');
    expect(answer.body).toEqual({ offset: await world.ledger.ledgerEnd() });
    expect(answer.body.offset).toBeGreaterThan(0);
    expectSchema('ledger', 'GetLedgerEndResponse', answer.body);
  });

  it('has pruned nothing', async () => {
    const answer = await world.get('/v2/state/latest-pruned-offsets');
    expectSchema('ledger', 'GetLatestPrunedOffsetsResponse', answer.body);
    expect(answer.body.participantPrunedUpToInclusive).toBe(0);
  });

  it('is connected to one synchronizer with submission permission', async () => {
    const answer = await world.get('/v2/state/connected-synchronizers');
    expect(answer.body.connectedSynchronizers).toHaveLength(1);
    expect(answer.body.connectedSynchronizers[0].permission).toBe(
      'PARTICIPANT_PERMISSION_SUBMISSION',
    );
    expectSchema('ledger', 'GetConnectedSynchronizersResponse', answer.body);
  });

  it('lists parties, the external ones it hosts as local as the internal ones', async () => {
    const answer = await world.get('/v2/parties');
    expectSchema('ledger', 'ListKnownPartiesResponse', answer.body);
    const byId = new Map(answer.body.partyDetails.map((p: { party: string }) => [p.party, p]));
    expect(byId.get(world.pool)).toMatchObject({ isLocal: true });
    expect(byId.get(world.wallet.partyId)).toMatchObject({ isLocal: true });
    expect(byId.size).toBe((await world.ledger.listParties()).length);
  });

  it('pages the party list and filters it by prefix', async () => {
    const all = (await world.ledger.listParties()).map((p) => p.partyId);
    const seen: string[] = [];
    let token = '';
    do {
      const page = await world.get(`/v2/parties?pageSize=2${token ? `&pageToken=${token}` : ''}`);
      expectSchema('ledger', 'ListKnownPartiesResponse', page.body);
      expect(page.body.partyDetails.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.partyDetails.map((p: { party: string }) => p.party));
      token = page.body.nextPageToken;
    } while (token !== '');
    expect(seen).toEqual(all);
    const filtered = await world.get('/v2/parties?filter-party=pool%3A%3A');
    expect(filtered.body.partyDetails.map((p: { party: string }) => p.party)).toEqual([world.pool]);
  });

  it('answers a known party and leaves an unknown one out', async () => {
    const known = await world.get(`/v2/parties/${encodeURIComponent(world.pool)}`);
    expect(known.body.partyDetails.map((p: { party: string }) => p.party)).toEqual([world.pool]);
    expectSchema('ledger', 'GetPartiesResponse', known.body);
    const unknown = await world.get('/v2/parties/nobody%3A%3A1220ab');
    expect(unknown.body).toEqual({ partyDetails: [] });
  });

  it('allocates an internal party the default user may then act as', async () => {
    const answer = await world.post('/v2/parties', {
      partyIdHint: 'market-maker',
      identityProviderId: '',
      userId: 'poolparty',
    });
    expect(answer.status).toBe(200);
    expectSchema('ledger', 'AllocatePartyResponse', answer.body);
    const { party, isLocal } = answer.body.partyDetails;
    expect(isLocal).toBe(true);
    expect(await world.ledger.getParty(party)).toEqual({ partyId: party, kind: 'internal' });
    const rights = await world.get('/v2/users/poolparty/rights');
    expect(rights.body.rights).toContainEqual({ kind: { CanActAs: { value: { party } } } });
    const bad = await world.post('/v2/parties', {
      partyIdHint: 'no spaces allowed',
    });
    expectCantonError(bad, 400, 'INVALID_ARGUMENT');
  });

  it('answers an unknown participant path with a JsCantonError', async () => {
    expectCantonError(await world.get('/v2/no-such-endpoint'), 404, 'NOT_FOUND');
    expectCantonError(await world.post('/v2/state/ledger-end', {}), 404, 'NOT_FOUND');
  });

  it('names its participant id', async () => {
    const answer = await world.get('/v2/parties/participant-id');
    expect(answer.body.participantId).toMatch(/^PAR::devnet::1220[0-9a-f]{64}$/);
    expectSchema('ledger', 'GetParticipantIdResponse', answer.body);
  });

  it('allocates local parties in its own namespace, where a client looks for them', async () => {
    const { participantId } = (await world.get('/v2/parties/participant-id')).body;
    const namespace = participantId.slice(participantId.lastIndexOf('::') + 2);
    const allocated = await world.post('/v2/parties', {
      partyIdHint: 'local-one',
      identityProviderId: '',
    });
    expect(allocated.body.partyDetails.party).toBe(`local-one::${namespace}`);
    // A client checks whether a hint is allocated already by asking for it in that namespace.
    const found = await world.get(`/v2/parties/${encodeURIComponent(`local-one::${namespace}`)}`);
    expectSchema('ledger', 'GetPartiesResponse', found.body);
    expect(found.body.partyDetails.map((p: { party: string }) => p.party)).toEqual([
      `local-one::${namespace}`,
    ]);
    // The seeded internal parties are the participant's too.
    expect(world.treasury.endsWith(`::${namespace}`)).toBe(true);
  });

  it('acts as the default user, who may act as every internal party and read as any', async () => {
    const me = await world.get('/v2/authenticated-user');
    expect(me.body.user.id).toBe('poolparty');
    expectSchema('ledger', 'GetUserResponse', me.body);
    const rights = await world.get('/v2/users/poolparty/rights');
    expectSchema('ledger', 'ListUserRightsResponse', rights.body);
    const actAs = rights.body.rights
      .filter((r: { kind: { CanActAs?: unknown } }) => r.kind.CanActAs)
      .map(
        (r: { kind: { CanActAs: { value: { party: string } } } }) => r.kind.CanActAs.value.party,
      );
    expect(actAs).toContain(world.pool);
    expect(actAs).toContain(world.treasury);
    expect(actAs).not.toContain(world.wallet.partyId);
    expect(rights.body.rights).toContainEqual({ kind: { CanReadAsAnyParty: { value: {} } } });
  });

  it('grants a right once and reports only what is new', async () => {
    const grant = {
      userId: 'poolparty',
      rights: [{ kind: { CanReadAs: { value: { party: world.wallet.partyId } } } }],
    };
    const first = await world.post('/v2/users/poolparty/rights', grant);
    expect(first.body.newlyGrantedRights).toEqual(grant.rights);
    expectSchema('ledger', 'GrantUserRightsResponse', first.body);
    const again = await world.post('/v2/users/poolparty/rights', grant);
    expect(again.body.newlyGrantedRights).toEqual([]);
  });

  it('refuses unknown users and malformed rights with Canton codes', async () => {
    expectCantonError(await world.get('/v2/users/nobody'), 404, 'USER_NOT_FOUND');
    expectCantonError(
      await world.post('/v2/users/poolparty/rights', {
        userId: 'poolparty',
        rights: [{ kind: { CanActAs: { value: {} } } }],
      }),
      400,
      'INVALID_ARGUMENT',
    );
  });
});

describe('devnet ledger server with auth', () => {
  const world = sharedWorld({ auth: true });

  it('refuses a request without a token as UNAUTHENTICATED', async () => {
    expectCantonError(await world.get('/v2/state/ledger-end'), 401, 'UNAUTHENTICATED');
  });

  it('refuses a token for another audience or signed with another secret', async () => {
    const otherAudience = await tokenFor('poolparty', { audience: 'https://elsewhere.example' });
    const otherSecret = await tokenFor('poolparty', { secret: 'not-the-secret' });
    for (const token of [otherAudience, otherSecret, 'not.a.jwt']) {
      const answer = await world.get('/v2/state/ledger-end', token);
      expectCantonError(answer, 401, 'UNAUTHENTICATED');
    }
  });

  it('serves a request with a valid token as the token subject', async () => {
    const end = await world.get('/v2/state/ledger-end', world.token);
    expect(end.body.offset).toBe(await world.ledger.ledgerEnd());
    const me = await world.get('/v2/authenticated-user', world.token);
    expect(me.body.user.id).toBe('poolparty');
  });

  it('refuses a token once it has expired, though it was served before', async () => {
    // Whole seconds: a JWT's expiry has no finer grain.
    const expiresAt = new Date((Math.floor(Date.now() / 1000) + 2) * 1000);
    const token = await tokenFor('poolparty', { expiresAt });
    const served = await world.get('/v2/state/ledger-end', token);
    expect(served.status).toBe(200);
    await sleep(expiresAt.getTime() - Date.now() + 50);
    const later = await world.get('/v2/state/ledger-end', token);
    expectCantonError(later, 401, 'UNAUTHENTICATED');
  });

  it('gives a user the participant does not know no rights', async () => {
    const stranger = await tokenFor('stranger');
    const answer = await world.post(
      '/v2/state/active-contracts',
      {
        activeAtOffset: 0,
        eventFormat: { filtersByParty: { [world.pool]: {} } },
      },
      stranger,
    );
    expectCantonError(answer, 403, 'PERMISSION_DENIED');
  });

  it('refuses a submission naming another user than the token’s', async () => {
    const body = transferSubmission(world, 'other-user');
    const answer = await world.post(
      '/v2/commands/submit-and-wait-for-transaction',
      {
        commands: { ...body.commands, userId: 'someone-else' },
      },
      world.token,
    );
    expectCantonError(answer, 403, 'PERMISSION_DENIED');
    const own = await world.post('/v2/commands/submit-and-wait-for-transaction', body, world.token);
    expect(own.status).toBe(200);
  });

  it('creates users, who may act only as granted', async () => {
    const created = await world.post(
      '/v2/users',
      {
        user: { id: 'wallet-app', primaryParty: '', isDeactivated: false, identityProviderId: '' },
        rights: [{ kind: { CanReadAs: { value: { party: world.treasury } } } }],
      },
      world.token,
    );
    expect(created.status).toBe(200);
    expectSchema('ledger', 'CreateUserResponse', created.body);
    const again = await world.post('/v2/users', { user: { id: 'wallet-app' } }, world.token);
    expectCantonError(again, 409, 'USER_ALREADY_EXISTS');
    const listed = await world.get('/v2/users', world.token);
    expectSchema('ledger', 'ListUsersResponse', listed.body);
    expect(listed.body.users.map((u: { id: string }) => u.id)).toEqual(['poolparty', 'wallet-app']);

    const appToken = await tokenFor('wallet-app');
    const body = (commandId: string) => {
      const { commands } = transferSubmission(world, commandId);
      return { commands: { ...commands, userId: 'wallet-app' } };
    };
    const SUBMIT = '/v2/commands/submit-and-wait-for-transaction';
    expectCantonError(await world.post(SUBMIT, body('app-1'), appToken), 403, 'PERMISSION_DENIED');
    const grant = await world.post(
      '/v2/users/wallet-app/rights',
      {
        userId: 'wallet-app',
        rights: [
          { kind: { CanActAs: { value: { party: world.treasury } } } },
          { kind: { CanExecuteAsAnyParty: { value: {} } } },
        ],
      },
      world.token,
    );
    expect(grant.body.newlyGrantedRights).toHaveLength(2);
    expect((await world.post(SUBMIT, body('app-2'), appToken)).status).toBe(200);
    // Reading for any party needs its own right.
    const anyParty = await world.post(
      '/v2/state/active-contracts',
      { activeAtOffset: 0, eventFormat: { filtersForAnyParty: {} } },
      appToken,
    );
    expectCantonError(anyParty, 403, 'PERMISSION_DENIED');
    // A user manages neither other users nor rights.
    expectCantonError(await world.get('/v2/users', appToken), 403, 'PERMISSION_DENIED');
    expectCantonError(await world.get('/v2/users/poolparty', appToken), 403, 'PERMISSION_DENIED');
  });

  it('keeps the registry and scan proxy open, as a validator does', async () => {
    const rounds = await world.get('/api/validator/v0/scan-proxy/open-and-issuing-mining-rounds');
    expect(rounds.status).toBe(200);
  });
});
