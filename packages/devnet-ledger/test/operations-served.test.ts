/**
 * Which operations of the JSON Ledger API the devnet participant serves: the reads and
 * submissions a wallet or an exchange integration uses answer in the API's shapes, and every other
 * operation of the API answers a JsCantonError saying it is not served, never a bare 404.
 */
import { describe, expect, it } from 'vitest';
import { UNSERVED_OPERATIONS } from '../src/unserved-operations.js';
import { submission, transferCommand } from './support/commands.js';
import { expectSchema, sharedWorld } from './support/server.js';

describe('operations the devnet participant serves', () => {
  const world = sharedWorld();

  it('answers every operation it does not serve with UNSUPPORTED_OPERATION saying why', async () => {
    for (const { method, url } of UNSERVED_OPERATIONS) {
      const path = url.replace(/:[A-Za-z]+/g, 'x');
      const withBody = method !== 'GET' && method !== 'DELETE';
      const response = await fetch(`${world.server.url}${path}`, {
        method,
        ...(withBody && { headers: { 'content-type': 'application/json' }, body: '{}' }),
      });
      const body = await response.json();
      expect({ path, status: response.status, code: body.code }).toEqual({
        path,
        status: 501,
        code: 'UNSUPPORTED_OPERATION',
      });
      expect(body.cause).toContain('is not served by the devnet ledger');
      expectSchema('ledger', 'JsCantonError', body);
    }
  });

  it('lists its packages and prefers them by name, and no other', async () => {
    const packages = await world.get('/v2/packages');
    expectSchema('ledger', 'ListPackagesResponse', packages.body);
    const preferred = await world.get(
      '/v2/interactive-submission/preferred-package-version?package-name=splice-api-token-holding-v1',
    );
    expectSchema('ledger', 'GetPreferredPackageVersionResponse', preferred.body);
    expect(packages.body.packageIds).toContain(
      preferred.body.packagePreference.packageReference.packageId,
    );
    const unknown = await world.get(
      '/v2/interactive-submission/preferred-package-version?package-name=splice-amulet',
    );
    expect(unknown).toEqual({ status: 200, body: {} });
  });

  it('submits asynchronously, and reads the update back by offset and the contract by id', async () => {
    const command = transferCommand({
      sender: world.treasury,
      receiver: world.pool,
      instrument: world.amulet,
      amount: '3',
    });
    const submitted = await world.post(
      '/v2/commands/async/submit',
      submission('async-1', [world.treasury], command).commands,
    );
    expect(submitted).toEqual({ status: 200, body: {} });
    const done = await world.ledger.lookupCommand('async-1');
    const filtersByParty = { [world.pool]: {} };
    const update = await world.post('/v2/updates/update-by-offset', {
      offset: done?.offset,
      updateFormat: {
        includeTransactions: {
          eventFormat: { filtersByParty, verbose: true },
          transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
        },
      },
    });
    expectSchema('ledger', 'JsGetUpdateResponse', update.body);
    const created = update.body.update.Transaction.value.events.find(
      (event: { CreatedEvent?: unknown }) => event.CreatedEvent !== undefined,
    ).CreatedEvent;
    expect(created.witnessParties).toEqual([world.pool]);
    const contract = await world.post('/v2/contracts/contract-by-id', {
      contractId: created.contractId,
      queryingParties: [world.pool],
    });
    expectSchema('ledger', 'GetContractResponse', contract.body);
    expect(contract.body.createdEvent.witnessParties).toEqual([world.pool]);
  });
});

describe('operations the devnet validator’s scan proxy serves', () => {
  const world = sharedWorld();

  const scanProxy = (path: string) => `/api/validator/v0/scan-proxy${path}`;

  it('answers no featured-app right and no name-service entries, as for a party that has none', async () => {
    const featured = await world.get(scanProxy(`/featured-apps/${world.pool}`));
    expect(featured).toEqual({ status: 200, body: {} });
    expectSchema('scan', 'LookupFeaturedAppRightResponse', featured.body);
    const entries = await world.get(scanProxy('/ans-entries?page_size=10'));
    expectSchema('scan', 'ListEntriesResponse', entries.body);
    const byParty = await world.get(scanProxy(`/ans-entries/by-party/${world.pool}`));
    expect(byParty.status).toBe(404);
    expectSchema('scan', 'ErrorResponse', byParty.body);
  });

  it('answers the operations it does not serve with an error saying so', async () => {
    const answer = await world.get(scanProxy('/dso'));
    expect(answer.status).toBe(501);
    expect(answer.body.error).toContain('is not served by the devnet ledger');
    expectSchema('scan', 'ErrorResponse', answer.body);
  });
});
