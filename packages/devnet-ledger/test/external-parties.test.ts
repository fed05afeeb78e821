/**
 * External-party onboarding: the topology transactions and multi-hash the participant writes are
 * the ones the wallet SDK recomputes, and allocating needs the party's key to have signed them.
 */
import { TopologyController } from '@canton-network/wallet-sdk';
import { encodeBase64, fingerprint, generateKeyPair, sign } from '@poolparty/core';
import { describe, expect, it } from 'vitest';
import { SYNCHRONIZER_ID } from '../src/identity.js';
import { expectCantonError, expectSchema, sharedWorld } from './support/server.js';

describe('external-party onboarding', () => {
  const world = sharedWorld();

  const generate = async (hint: string, publicKey: Uint8Array) => {
    const answer = await world.post('/v2/parties/external/generate-topology', {
      synchronizer: SYNCHRONIZER_ID,
      partyHint: hint,
      publicKey: {
        format: 'CRYPTO_KEY_FORMAT_RAW',
        keyData: encodeBase64(publicKey),
        keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
      },
    });
    expect(answer.status).toBe(200);
    expectSchema('ledger', 'GenerateExternalPartyTopologyResponse', answer.body);
    return answer.body as {
      partyId: string;
      publicKeyFingerprint: string;
      topologyTransactions: string[];
      multiHash: string;
    };
  };

  const allocate = (
    topology: { topologyTransactions: string[]; multiHash: string },
    keys: { publicKey: Uint8Array; privateKey: Uint8Array },
  ) =>
    world.post('/v2/parties/external/allocate', {
      synchronizer: SYNCHRONIZER_ID,
      onboardingTransactions: topology.topologyTransactions.map((transaction) => ({ transaction })),
      multiHashSignatures: [
        {
          format: 'SIGNATURE_FORMAT_CONCAT',
          signature: encodeBase64(sign(Buffer.from(topology.multiHash, 'base64'), keys.privateKey)),
          signedBy: fingerprint(keys.publicKey),
          signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
        },
      ],
    });

  it('writes the transactions whose multi-hash the wallet SDK recomputes', async () => {
    const keys = generateKeyPair();
    const topology = await generate('carol', keys.publicKey);
    expect(topology.partyId).toBe(`carol::${fingerprint(keys.publicKey)}`);
    expect(topology.publicKeyFingerprint).toBe(fingerprint(keys.publicKey));
    expect(await TopologyController.computeTopologyTxHash(topology.topologyTransactions)).toBe(
      topology.multiHash,
    );
  });

  it('allocates the party only with its own key’s signature', async () => {
    const keys = generateKeyPair();
    const topology = await generate('dave', keys.publicKey);
    const forged = await allocate(topology, { ...generateKeyPair(), publicKey: keys.publicKey });
    expectCantonError(forged, 400, 'INVALID_ARGUMENT');
    expect(await world.ledger.getParty(topology.partyId)).toBeNull();
    const allocated = await allocate(topology, keys);
    expect(allocated.status).toBe(200);
    expectSchema('ledger', 'AllocateExternalPartyResponse', allocated.body);
    expect(await world.ledger.getParty(topology.partyId)).toEqual({
      partyId: topology.partyId,
      kind: 'external',
    });
    expect(await world.ledger.signingKeysOf(topology.partyId)).toEqual([keys.publicKey]);
  });

  it('refuses hosting elsewhere than on the devnet participant', async () => {
    const answer = await world.post('/v2/parties/external/generate-topology', {
      synchronizer: SYNCHRONIZER_ID,
      partyHint: 'erin',
      publicKey: {
        format: 'CRYPTO_KEY_FORMAT_RAW',
        keyData: encodeBase64(generateKeyPair().publicKey),
        keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
      },
      otherConfirmingParticipantUids: ['PAR::other::1220ab'],
    });
    expectCantonError(answer, 400, 'INVALID_ARGUMENT');
  });
});
