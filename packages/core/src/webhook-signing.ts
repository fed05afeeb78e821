/**
 * The signature of a webhook request (docs/spec/webhooks.md#signatures): `PoolParty-Signature:
 * t=<unix seconds>,v1=<hex>[,v1=<hex>…]`, each `v1` the HMAC-SHA256 of `"<t>.<raw body>"` keyed
 * by one secret's UTF-8 bytes. One `v1` per secret valid when the request is sent, so a receiver
 * that has the old secret or the new one during a rotation accepts it.
 *
 * The timestamp is signed with the body so a captured request cannot be replayed later under a
 * fresh `t`; a receiver refuses a `t` too far from its own clock (the spec suggests 5 minutes).
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** The scheme's one signature version: HMAC-SHA256, hex. */
export const WEBHOOK_SIGNATURE_VERSION = 'v1';
/** `v1=` entries one header carries at most: the current secret and one in its overlap. */
export const WEBHOOK_SIGNATURES_MAX = 2;
/** A header longer than this is no signature header of ours (it is refused unread). */
const SIGNATURE_HEADER_CHARS_MAX = 512;
const HEX_SHA256 = /^[0-9a-f]{64}$/;

function checkTimestamp(timestamp: number): void {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new RangeError(`a webhook timestamp is whole unix seconds, got ${timestamp}`);
  }
}

/** The hex HMAC-SHA256 of `"<timestamp>.<body>"` keyed by the secret's UTF-8 bytes. */
export function signWebhookPayload(secret: string, timestamp: number, body: string): string {
  checkTimestamp(timestamp);
  return bytesToHex(hmac(sha256, utf8ToBytes(secret), utf8ToBytes(`${timestamp}.${body}`)));
}

/** What computes one `v1`: `signWebhookPayload`, or a faster one of the runtime giving the same. */
export type WebhookPayloadSigner = (secret: string, timestamp: number, body: string) => string;

/** The `PoolParty-Signature` value: `t=<timestamp>` and one `v1=` per secret, in order. */
export function webhookSignatureHeader(
  secrets: readonly string[],
  timestamp: number,
  body: string,
  sign: WebhookPayloadSigner = signWebhookPayload,
): string {
  // Checked here too: a signer of the runtime's need not check it.
  checkTimestamp(timestamp);
  if (secrets.length === 0 || secrets.length > WEBHOOK_SIGNATURES_MAX) {
    throw new RangeError(
      `a webhook is signed with 1 to ${WEBHOOK_SIGNATURES_MAX} secrets, got ${secrets.length}`,
    );
  }
  const signatures = secrets.map(
    (secret) => `${WEBHOOK_SIGNATURE_VERSION}=${sign(secret, timestamp, body)}`,
  );
  return [`t=${timestamp}`, ...signatures].join(',');
}

export interface ParsedWebhookSignature {
  readonly timestamp: number;
  /** The `v1` signatures, lowercase hex; entries of other versions are skipped. */
  readonly signatures: readonly string[];
}

/**
 * Reads a `PoolParty-Signature` value; null when it has no `t`, a second `t`, a `t` that is not
 * whole seconds, or no `v1`. Entries of unknown versions are skipped, so a later scheme can be
 * added beside `v1` without breaking receivers.
 */
export function parseWebhookSignatureHeader(header: string): ParsedWebhookSignature | null {
  if (header.length > SIGNATURE_HEADER_CHARS_MAX) return null;
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (at <= 0) return null;
    const name = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (name === 't') {
      if (timestamp !== null || !/^\d{1,15}$/.test(value)) return null;
      timestamp = Number(value);
    } else if (name === WEBHOOK_SIGNATURE_VERSION) {
      if (!HEX_SHA256.test(value)) return null;
      signatures.push(value);
    }
  }
  if (timestamp === null || signatures.length === 0) return null;
  return { timestamp, signatures };
}
