/**
 * The validator's scan proxy and the Token Standard registries: mining round, Amulet rules,
 * pre-approvals, instrument metadata, the transfer factory and the instructions' choice contexts.
 */
import { Amount } from '@poolparty/core';
import { describe, expect, it } from 'vitest';
import { expectSchema, sharedWorld, type World } from './support/server.js';

const SCAN = '/api/validator/v0/scan-proxy';

describe('scan proxy', () => {
  const world = sharedWorld();

  it('reports the open mining round with the Amulet price', async () => {
    const answer = await world.get(`${SCAN}/open-and-issuing-mining-rounds`);
    expectSchema('scan', 'GetOpenAndIssuingMiningRoundsProxyResponse', answer.body);
    const round = await world.ledger.openMiningRound();
    const payload = answer.body.open_mining_rounds[0].contract.payload;
    expect(payload.round.number).toBe(String(round.round));
    expect(Amount.parse(payload.amuletPrice).eq(round.amuletPriceUsd)).toBe(true);
    expect(payload.opensAt).toBe(round.opensAt.toISOString());
  });

  it('names the DSO party: the Amulet admin', async () => {
    const answer = await world.get(`${SCAN}/dso-party-id`);
    expectSchema('scan', 'GetDsoPartyIdResponse', answer.body);
    expect(answer.body.dso_party_id).toBe(world.amulet.admin);
  });

  it('names the validator operator, without a token, as a validator’s public API does', async () => {
    const answer = await world.get('/api/validator/v0/validator-user');
    expect(answer.status).toBe(200);
    // Splice's GetValidatorUserInfoResponse (not among the vendored documents): all three required.
    expect(answer.body).toEqual({
      party_id: world.amulet.admin,
      user_name: 'poolparty',
      featured: false,
    });
  });

  it('reports the extra traffic price in the Amulet rules', async () => {
    const answer = await world.get(`${SCAN}/amulet-rules`);
    expectSchema('scan', 'GetAmuletRulesProxyResponse', answer.body);
    const fees =
      answer.body.amulet_rules.contract.payload.configSchedule.initialValue
        .decentralizedSynchronizer.fees;
    const traffic = await world.ledger.trafficParameters();
    expect(Amount.parse(fees.extraTrafficPrice).eq(traffic.extraTrafficPriceUsdPerMb)).toBe(true);
  });

  it('finds the pre-approval of a party that pre-approves Amulet, and 404s otherwise', async () => {
    const found = await world.get(
      `${SCAN}/transfer-preapprovals/by-party/${encodeURIComponent(world.pool)}`,
    );
    expectSchema('scan', 'LookupTransferPreapprovalByPartyResponse', found.body);
    expect(found.body.transfer_preapproval.contract.payload.receiver).toBe(world.pool);
    const missing = await world.get(
      `${SCAN}/transfer-preapprovals/by-party/${encodeURIComponent(world.treasury)}`,
    );
    expect(missing.status).toBe(404);
    expectSchema('scan', 'ErrorResponse', missing.body);
    // The wallet SDK's lookup returns "none" only for Splice's text, and retries anything else.
    expect(missing.body.error).toBe(`No TransferPreapproval found for party: ${world.treasury}`);
  });
});

describe('registries', () => {
  const world = sharedWorld();

  const factoryRequest = (w: World, receiver: string, instrument = w.amulet) => ({
    choiceArguments: {
      expectedAdmin: instrument.admin,
      transfer: {
        sender: w.treasury,
        receiver,
        amount: '10.0000000000',
        instrumentId: instrument,
        requestedAt: new Date().toISOString(),
        executeBefore: new Date(Date.now() + 3_600_000).toISOString(),
        inputHoldingCids: [],
        meta: { values: {} },
      },
      extraArgs: { context: { values: {} }, meta: { values: {} } },
    },
  });

  it('describes the default registry and lists only the Amulet admin’s instruments with their supply', async () => {
    const base = new URL(world.server.registryUrl).pathname;
    const info = await world.get(`${base}/registry/metadata/v1/info`);
    expectSchema('metadata', 'GetRegistryInfoResponse', info.body);
    expect(info.body.adminId).toBe(world.amulet.admin);
    const list = await world.get(`${base}/registry/metadata/v1/instruments`);
    expectSchema('metadata', 'ListInstrumentsResponse', list.body);
    // A wallet files what a registry lists under the registry's admin: circle's USDCx is not DSO's.
    expect(list.body.instruments.map((i: { id: string }) => i.id)).toEqual(['Amulet']);
    const foreign = await world.get(`${base}/registry/metadata/v1/instruments/USDCx`);
    expect(foreign.status).toBe(404);
    expectSchema('metadata', 'ErrorResponse', foreign.body);
    const amulet = list.body.instruments[0];
    expect(Amount.parse(amulet.totalSupply).eq(Amount.of(1100))).toBe(true);
    expect(amulet.decimals).toBe(10);
  });

  it('serves one admin’s instruments at its own registry and 404s the others', async () => {
    const base = new URL(world.server.registryUrlOf(world.usdcx.admin)).pathname;
    const info = await world.get(`${base}/registry/metadata/v1/info`);
    expect(info.body.adminId).toBe(world.usdcx.admin);
    const one = await world.get(`${base}/registry/metadata/v1/instruments/USDCx`);
    expectSchema('metadata', 'Instrument', one.body);
    const other = await world.get(`${base}/registry/metadata/v1/instruments/Amulet`);
    expect(other.status).toBe(404);
    expectSchema('metadata', 'ErrorResponse', other.body);
  });

  it('pages the instrument list', async () => {
    const issuer = (await world.ledger.createParty({ hint: 'issuer' })).partyId;
    await world.ledger.createInstrument({ admin: issuer, id: 'BondA' });
    await world.ledger.createInstrument({ admin: issuer, id: 'BondB' });
    const base = new URL(world.server.registryUrlOf(issuer)).pathname;
    const first = await world.get(`${base}/registry/metadata/v1/instruments?pageSize=1`);
    expect(first.body.instruments).toHaveLength(1);
    const second = await world.get(
      `${base}/registry/metadata/v1/instruments?pageSize=1&pageToken=${first.body.nextPageToken}`,
    );
    expect(second.body.instruments.map((i: { id: string }) => i.id)).toEqual(['BondB']);
    expect(second.body.nextPageToken).toBeUndefined();
  });

  it('hands out the factory: direct to a receiver that pre-approves, else an offer', async () => {
    const base = new URL(world.server.registryUrl).pathname;
    const path = `${base}/registry/transfer-instruction/v1/transfer-factory`;
    const direct = await world.post(path, factoryRequest(world, world.pool));
    expectSchema('transfer', 'TransferFactoryWithChoiceContext', direct.body);
    expect(direct.body.transferKind).toBe('direct');
    expect(Object.keys(direct.body.choiceContext.choiceContextData.values)).toContain(
      'transfer-preapproval',
    );
    const ids = direct.body.choiceContext.disclosedContracts.map(
      (c: { contractId: string }) => c.contractId,
    );
    expect(ids).toContain(direct.body.factoryId);
    const offer = await world.post(path, factoryRequest(world, world.wallet.partyId));
    expect(offer.body.transferKind).toBe('offer');
    expect(offer.body.factoryId).toBe(direct.body.factoryId);
    const self = await world.post(path, factoryRequest(world, world.treasury));
    expect(self.body.transferKind).toBe('self');
    // Canton Coin's registry has no factory for circle's USDCx: circle's own registry has.
    const foreign = await world.post(path, factoryRequest(world, world.pool, world.usdcx));
    expect(foreign.status).toBe(404);
    expectSchema('transfer', 'ErrorResponse', foreign.body);
  });

  it('refuses a malformed factory request (400) and an instrument it does not serve (404)', async () => {
    const base = new URL(world.server.registryUrlOf(world.usdcx.admin)).pathname;
    const path = `${base}/registry/transfer-instruction/v1/transfer-factory`;
    const malformed = await world.post(path, { choiceArguments: {} });
    expect(malformed.status).toBe(400);
    expectSchema('transfer', 'ErrorResponse', malformed.body);
    const foreign = await world.post(path, factoryRequest(world, world.pool));
    expect(foreign.status).toBe(404);
  });

  it('gives choice contexts for a pending instruction only', async () => {
    const { offerId } = (await world.ledger.submitTransfer({
      commandId: 'registry-offer',
      sender: world.treasury,
      receiver: world.wallet.partyId,
      instrument: world.usdcx,
      amount: Amount.of(5),
    })) as { offerId: string };
    const base = new URL(world.server.registryUrlOf(world.usdcx.admin)).pathname;
    const amuletBase = new URL(world.server.registryUrl).pathname;
    const elsewhere = await world.post(
      `${amuletBase}/registry/transfer-instruction/v1/${offerId}/choice-contexts/accept`,
      {},
    );
    expect(elsewhere.status).toBe(404);
    for (const action of ['accept', 'reject', 'withdraw']) {
      const answer = await world.post(
        `${base}/registry/transfer-instruction/v1/${offerId}/choice-contexts/${action}`,
        {},
      );
      expect(answer.status).toBe(200);
      expectSchema('transfer', 'ChoiceContext', answer.body);
    }
    await world.ledger.withdrawOffer({
      commandId: 'registry-withdraw',
      offerId,
      actor: world.treasury,
    });
    const gone = await world.post(
      `${base}/registry/transfer-instruction/v1/${offerId}/choice-contexts/accept`,
      {},
    );
    expect(gone.status).toBe(404);
    expectSchema('transfer', 'ErrorResponse', gone.body);
  });
});
