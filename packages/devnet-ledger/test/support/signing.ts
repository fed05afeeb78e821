/** External parties signing prepared transactions, as a wallet does for interactive submission. */
import { encodeBase64, fingerprint, generateKeyPair, sign } from '@poolparty/core';
import type { LocalLedger } from '@poolparty/ledger';

/** An external party with its own key pair. */
export interface Signer {
  readonly partyId: string;
  readonly publicKey: Uint8Array;
  readonly privateKey: Uint8Array;
}

export interface Prepared {
  readonly preparedTransaction: string;
  readonly preparedTransactionHash: string;
}

/** Allocates an external party identified by a new key. */
export async function externalParty(ledger: LocalLedger, hint: string): Promise<Signer> {
  const keys = generateKeyPair();
  const { partyId } = await ledger.createParty({ hint, publicKey: keys.publicKey });
  return { partyId, ...keys };
}

/** `party`'s entry of the party signatures: the prepared hash signed by `key`, its own or not. */
export function partySignature(party: string, hash: string, key: Omit<Signer, 'partyId'>) {
  return {
    party,
    signatures: [
      {
        format: 'SIGNATURE_FORMAT_CONCAT',
        signature: encodeBase64(sign(Buffer.from(hash, 'base64'), key.privateKey)),
        signedBy: fingerprint(key.publicKey),
        signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
      },
    ],
  };
}

/** An execute request of `prepared` with these party signatures. */
export function executeRequest(prepared: Prepared, signatures: unknown[], submissionId: string) {
  return {
    preparedTransaction: prepared.preparedTransaction,
    hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
    submissionId,
    partySignatures: { signatures },
  };
}

/** An execute request of `prepared`, each signer signing with its own key. */
export function signedBy(prepared: Prepared, signers: readonly Signer[], submissionId: string) {
  const signatures = signers.map((signer) =>
    partySignature(signer.partyId, prepared.preparedTransactionHash, signer),
  );
  return executeRequest(prepared, signatures, submissionId);
}
