/**
 * The devnet entry against a real service: a wallet made here (its key never leaves) is funded,
 * authenticates, swaps and deposits; a seeded party signs with the hex key of devnet.json; offers
 * to a party without pre-approval are listed, accepted and rejected; a wrong key is refused; a
 * transfer the holdings do not cover is refused.
 */

import { AuthenticationError, ConflictError, NotFoundError, ValidationError } from '@poolparty/sdk';
import { Devnet, type DevnetWallet, generatePrivateKey } from '@poolparty/sdk/devnet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaled } from './support/amounts.js';
import { type Live, startLive, swapAmulet, uniqueHint } from './support/live.js';

let live: Live;

beforeAll(async () => {
  live = await startLive();
});

afterAll(() => live?.close());

const hint = uniqueHint;

describe('the devnet wallet', () => {
  it('is created from a local key, funded, authenticated, and deposits for a swap that completes', async () => {
    const wallet = await live.devnet.createWallet({ partyHint: hint('maker') });
    expect(wallet.partyId).toMatch(/^maker-[a-z0-9]+::1220[0-9a-f]{64}$/);
    await wallet.fund('Amulet', '1000');
    expect(await wallet.balance('Amulet')).toBe('1000');

    const { swap, result } = await swapAmulet(live, wallet, '100');
    expect(result.status).toBe('completed');
    expect(await wallet.balance('Amulet')).toBe('900');
    const usdcx = await wallet.balance('USDCx', live.canonical.tokenB.admin);
    expect(scaled(usdcx)).toBe(scaled(result.actualOutput));
    expect(scaled(usdcx)).toBeGreaterThanOrEqual(scaled(swap.minOutput));
  });

  it('signs for a seeded party with the hex private key of devnet.json', async () => {
    const [seeded] = live.t.users;
    if (!seeded) throw new Error('no seeded user');
    const wallet = await live.devnet.wallet(seeded.partyId, seeded.privateKey);
    expect(wallet.signer.publicKeyHex).toBe(seeded.publicKey);
    const { partyId, token } = await wallet.authenticate(live.client());
    expect(partyId).toBe(seeded.partyId);
    expect(token.length).toBeGreaterThan(20);
  });

  it('takes the key it was created with, in any accepted form', async () => {
    const key = generatePrivateKey();
    const wallet = await live.devnet.createWallet({ partyHint: hint('keyed'), key });
    const again = await live.devnet.wallet(
      wallet.partyId,
      Buffer.from(key, 'hex').toString('base64'),
    );
    expect(again.publicKey).toBe(wallet.publicKey);
    await expect(again.authenticate(live.client())).resolves.toMatchObject({
      partyId: wallet.partyId,
    });
  });

  it('lists offers to a party without pre-approval, and accepts and rejects them', async () => {
    const sender = await live.devnet.createWallet({ partyHint: hint('sender') });
    await sender.fund('Amulet', '50');
    const receiver = await live.devnet.createWallet({
      partyHint: hint('receiver'),
      preapproval: false,
    });

    const first = await sender.transfer({
      receiver: receiver.partyId,
      token: 'Amulet',
      amount: '20',
      reason: 'first',
    });
    expect(first).toMatchObject({ kind: 'offer', offerId: expect.any(String) });
    const second = await sender.transfer({
      receiver: receiver.partyId,
      token: 'Amulet',
      amount: '5',
    });
    const offers = await receiver.offers();
    expect(offers.map((o) => [o.offerId, o.amount, o.reason])).toEqual(
      expect.arrayContaining([
        [first.offerId, '20', 'first'],
        [second.offerId, '5', null],
      ]),
    );
    // Offered tokens stay the sender's, locked, until the receiver decides.
    expect(await sender.holdings()).toEqual([
      expect.objectContaining({ token: 'Amulet', amount: '25', locked: '25' }),
    ]);

    await receiver.acceptOffer(first.offerId ?? '');
    await receiver.rejectOffer(second.offerId ?? '');
    expect(await receiver.balance('Amulet')).toBe('20');
    expect(await receiver.offers()).toEqual([]);
    expect(await sender.holdings()).toEqual([
      expect.objectContaining({ token: 'Amulet', amount: '30', locked: '0' }),
    ]);
  });

  it('is refused with invalid_party_signature when the key is not the party’s', async () => {
    const owner = await live.devnet.createWallet({ partyHint: hint('owner') });
    await owner.fund('Amulet', '10');
    const impostor = await live.devnet.wallet(owner.partyId, generatePrivateKey());
    const error = await impostor
      .transfer({ receiver: live.canonical.swapParty, token: 'Amulet', amount: '1' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ code: 'invalid_party_signature', status: 401 });
    expect(await owner.balance('Amulet')).toBe('10');
  });

  it('sets validUntil by the ledger clock, and a copy used after it is refused', async () => {
    const sender = await live.devnet.createWallet({ partyHint: hint('timely') });
    await sender.fund('Amulet', '10');
    const { partyId: receiver } = await live.devnet.createWallet({ partyHint: hint('payee') });
    const past = new Date((await live.devnet.clock()).getTime() - 1000).toISOString();
    const late = await sender
      .transfer({ receiver, token: 'Amulet', amount: '1', validUntil: past })
      .catch((e: unknown) => e);
    expect(late).toBeInstanceOf(AuthenticationError);
    expect(late).toMatchObject({ code: 'signature_expired', status: 401 });
    const tooFar = new Date((await live.devnet.clock()).getTime() + 2 * 3_600_000).toISOString();
    const ahead = await sender
      .transfer({ receiver, token: 'Amulet', amount: '1', validUntil: tooFar })
      .catch((e: unknown) => e);
    expect(ahead).toMatchObject({ code: 'validation_error', status: 400 });
    expect(await sender.balance('Amulet')).toBe('10');

    // Two hours ahead of real time: a validUntil from the local clock would already be past.
    const moved = await fetch(`${live.t.url}/devnet/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advanceMs: 2 * 3_600_000 }),
    });
    expect(moved.status).toBe(200);
    await sender.transfer({ receiver, token: 'Amulet', amount: '1' });
    expect(await sender.balance('Amulet')).toBe('9');
  });

  it('refuses a signature validity the service would not accept', () => {
    for (const signatureValidityMs of [0, 3_600_001, 1.5]) {
      expect(() => new Devnet({ baseUrl: live.t.url, signatureValidityMs })).toThrow(
        ValidationError,
      );
    }
  });

  it('refuses options that are not an origin, as PoolParty does, with ValidationError', () => {
    for (const options of [
      undefined,
      null,
      '',
      {},
      { baseUrl: 42 },
      { baseUrl: live.t.url, fetch: 1 },
    ]) {
      expect(() => new Devnet(options as never), JSON.stringify(options)).toThrow(ValidationError);
    }
    expect(() => new Devnet(undefined as never)).toThrow(/Invalid devnet options: expected/);
  });

  it('answers a transfer the holdings do not cover with insufficient_funds, and moves nothing', async () => {
    const poor = await live.devnet.createWallet({ partyHint: hint('poor') });
    await poor.fund('Amulet', '5');
    const receiver = await live.devnet.createWallet({ partyHint: hint('payee') });
    const error = await poor
      .transfer({ receiver: receiver.partyId, token: 'Amulet', amount: '50' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({ code: 'insufficient_funds', status: 409 });
    expect(await poor.balance('Amulet')).toBe('5');
    expect(await receiver.balance('Amulet')).toBe('0');
  });

  it('answers a party that does not exist with NotFoundError', async () => {
    const error = await live.devnet
      .holdings(`nobody::1220${'0'.repeat(64)}`)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ code: 'not_found', requestId: expect.any(String) });
  });
});
